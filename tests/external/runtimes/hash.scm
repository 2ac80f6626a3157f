;; hash.scm: a hash-table workload for Guile (tests/external/test_runtimes.py
;; and bench/bench_runtimes.py): fill an equal hash table with N string keys
;; holding lists, read them back, drop half, print a checksum.
(define n (string->number (or (getenv "HP_N") "20000")))
(define t (make-hash-table))
(let loop ((i 0))
  (when (< i n)
    (hash-set! t (string-append "key-" (number->string i)) (list i (* i i) (number->string i)))
    (loop (+ i 1))))
(define sum 0)
(let loop ((i 0))
  (when (< i n)
    (set! sum (+ sum (car (hash-ref t (string-append "key-" (number->string i))))))
    (when (even? i) (hash-remove! t (string-append "key-" (number->string i))))
    (loop (+ i 1))))
(display (list 'entries (hash-count (const #t) t) 'sum sum))
(newline)
