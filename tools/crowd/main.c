// crowd: the command-line front end of crowdstep.
#include <string.h>

#include "cli.h"
#ifdef CROWD_CLI_MPI
#include <mpi.h>
#endif

static void usage(FILE* f) {
    fputs("usage: crowd <command> [options]      (crowd <command> --help for details)\n"
          "\n"
          "commands:\n"
          "  run FILE     run a scenario file: timings, optional recording and state hash\n"
          "  demo         the plaza scenario with a summary and an HTML replay\n"
          "  view REC     turn a recording into a self-contained HTML replay\n"
          "  scale        speedup, efficiency and phase times across thread counts and sizes\n"
          "  hash         step a built-in scene and print its state hash\n"
          "  validate     the validation suite (RiMEA tests, measured flows) and its report\n",
          f);
}

static int dispatch(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char* c = argv[1];
    if (cli_is_help(c)) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(c, "run")) return cmd_run(argc, argv);
    if (!strcmp(c, "demo")) return cmd_demo(argc, argv);
    if (!strcmp(c, "view")) return cmd_view(argc, argv);
    if (!strcmp(c, "scale")) return cmd_scale(argc, argv);
    if (!strcmp(c, "hash")) return cmd_hash(argc, argv);
    if (!strcmp(c, "validate")) return cmd_validate(argc, argv);
    cli_error(NULL, "unknown command '%s' (try crowd --help)", c);
    return EXIT_USAGE;
}

// The MPI build's crowd runs under mpiexec (or alone, as one rank): `crowd hash` splits its world
// across the ranks.
int main(int argc, char** argv) {
#ifdef CROWD_CLI_MPI
    MPI_Init(&argc, &argv);
    const int code = dispatch(argc, argv);
    MPI_Finalize();
    return code;
#else
    return dispatch(argc, argv);
#endif
}
