;; A small file for compile.lsp to compile.
(defun fact (n) (if (< n 2) 1 (* n (fact (- n 1)))))
(defun main () (format t "fact 30 = ~a~%" (fact 30)))
