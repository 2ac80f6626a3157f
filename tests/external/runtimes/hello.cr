# A small Crystal program for tests/external/test_crystal.py: `crystal
# build` of it runs the compiler (which uses libgc), forks code-generation
# workers with every signal blocked, and runs cc and ld.
arr = [] of Int32
1000.times { |i| arr << i * 2 }
h = {} of String => Int32
1000.times { |i| h["k#{i}"] = i }
puts "sum #{arr.sum} keys #{h.size}"
