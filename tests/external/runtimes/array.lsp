;; An array workload: 30 passes writing and summing a vector of HP_LISP_N
;; (default 100000) elements.
(defvar *n* (let ((s (ext:getenv "HP_LISP_N"))) (if s (parse-integer s) 100000)))
(let ((v (make-array *n* :initial-element 0)) (s 0))
  (dotimes (k 30) (dotimes (i *n*) (setf (aref v i) (+ i k))) (setf s (+ s (reduce #'+ v))))
  (format t "array sum ~a~%" s))
