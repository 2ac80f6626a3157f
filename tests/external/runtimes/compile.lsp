;; compile-file of a small file, then load and run it (ldv: ECL's compiler
;; under page protection). Run in a directory holding small.lsp.
(compile-file "small.lsp" :output-file "small.fas")
(load "small.fas")
(main)
