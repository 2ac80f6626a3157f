;; The smallest ECL workload, for ldv=precise (tests/external/test_precise.py):
;; a list of 100 pairs built, kept across a collection, and read back.
(let ((l nil)) (dotimes (i 100) (push (cons i (* i i)) l))
  (si:gc t)
  (format t "tiny ~a ~a~%" (length l) (reduce #'+ (mapcar #'cdr l))))
