let
  n = 8000;
  step = acc: i: acc // { "k${toString i}" = { v = i; s = "x${toString i}"; }; };
  big = builtins.foldl' step {} (builtins.genList (x: x) n);
in builtins.length (builtins.attrNames big)
