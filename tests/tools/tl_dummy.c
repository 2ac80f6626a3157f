/* tl_dummy: an empty shared library the launcher tests preload in place of
 * libheapprof.so (HEAPPROF_LIB=...), so that the environment the launcher
 * builds reaches the program whatever the library would make of it. */
int tl_dummy_marker;
