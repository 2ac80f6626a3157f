# A small Crystal workload for tests/external/test_crystal.py, run under
# each ldv policy: rounds that build strings, arrays and a hash, keep some
# of them across collections, read them back, and print a checksum.
n = (ARGV[0]? || "2000").to_i
kept = [] of Array(String)
sum = 0_i64
20.times do |round|
  words = Array(String).new(n) { |i| "w#{round}-#{i}" }
  h = {} of String => Int32
  words.each_with_index { |w, i| h[w] = i }
  sum += h.values.sum(0_i64)
  kept << words if round % 4 == 0
  GC.collect if round % 5 == 4
end
kept.each { |ws| sum += ws.sum(&.size) }
puts "rounds 20 n #{n} sum #{sum} kept #{kept.size}"
