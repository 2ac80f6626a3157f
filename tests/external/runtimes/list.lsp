;; A list workload: 20 rounds building a list of HP_N (default 20000) pairs.
(defvar *n* (let ((s (ext:getenv "HP_LISP_N"))) (if s (parse-integer s) 20000)))
(defun build (n) (let ((l nil)) (dotimes (i n) (push (list i (* i i)) l)) l))
(let ((s 0)) (dotimes (k 20) (setf s (+ s (length (build *n*))))) (format t "list total ~a~%" s))
