/* dlhost: a program NOT linked with libgc that dlopen()s a plugin linked
 * with libgc (integration test 7). Usage: dlhost PLUGIN.so [global|local]. The plugin
 * allocates known objects and takes a census; the host prints what the
 * plugin reports. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dlhost PLUGIN.so [global|local]\n");
        return 2;
    }
    int mode = RTLD_NOW | (argc > 2 && strcmp(argv[2], "global") == 0 ? RTLD_GLOBAL
                                                                        : RTLD_LOCAL);
    void *h = dlopen(argv[1], mode);
    if (!h) {
        fprintf(stderr, "dlhost: %s\n", dlerror());
        return 1;
    }
    size_t (*run)(int);
    void (*collect)(void);
    *(void **)&run = dlsym(h, "plugin_run");
    *(void **)&collect = dlsym(h, "plugin_collect");
    if (!run || !collect) {
        fprintf(stderr, "dlhost: plugin functions missing\n");
        return 1;
    }
    size_t granted = run(60);
    printf("plugin_alloc 60 %zu\n", granted);
    fflush(stdout);
    collect();
    return 0;
}
