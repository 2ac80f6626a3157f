;; A list workload: 20 rounds building a 20000-element list of pairs.
(defun build (n) (let ((l nil)) (dotimes (i n) (push (list i (* i i)) l)) l))
(let ((s 0)) (dotimes (k 20) (setf s (+ s (length (build 20000))))) (format t "list total ~a~%" s))
