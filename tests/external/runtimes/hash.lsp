;; hash.lsp: a hash-table workload for ECL (tests/external/test_runtimes.py
;; and bench/bench_runtimes.py): fill an equal hash table with N string keys
;; holding lists, read them back, drop half, print a checksum.
(let* ((n (parse-integer (or (ext:getenv "HP_N") "20000")))
       (tab (make-hash-table :test #'equal))
       (sum 0))
  (dotimes (i n)
    (setf (gethash (format nil "key-~D" i) tab) (list i (* i i) (format nil "~D" i))))
  (dotimes (i n)
    (incf sum (first (gethash (format nil "key-~D" i) tab)))
    (when (evenp i) (remhash (format nil "key-~D" i) tab)))
  (format t "entries ~D sum ~D~%" (hash-table-count tab) sum))
