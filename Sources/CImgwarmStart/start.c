#include "imgwarm_start.h"
#include "imgwarm_sys.h"

#include <string.h>

/* glibc hands an ELF constructor the process's arguments. The test bundle links the imgwarm
   module too (its tests call the CLI's types): there a SIGTERM must still end the test runner,
   so the handlers are installed only when the program is not a test bundle (*.xctest). */
__attribute__((constructor)) static void imgwarm_start(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv[0] != NULL) {
        size_t length = strlen(argv[0]);
        const char *suffix = ".xctest";
        size_t suffix_length = strlen(suffix);
        if (length >= suffix_length && strcmp(argv[0] + length - suffix_length, suffix) == 0) {
            return;
        }
    }
    imgwarm_stop_install();
}
