;; An array workload: 30 passes writing and summing a 100000-element vector.
(let ((v (make-array 100000 :initial-element 0)) (s 0))
  (dotimes (k 30) (dotimes (i 100000) (setf (aref v i) (+ i k))) (setf s (+ s (reduce #'+ v))))
  (format t "array sum ~a~%" s))
