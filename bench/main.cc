// crowd_bench: the benchmark suite. Google Benchmark's flags, plus
//   --crowd_sizes=N,N,...     agent counts (default 1000,10000,20000,100000,1000000)
//   --crowd_threads=T,T,...   thread counts (default 1, 2, powers of two up to the core count
//                             and the core count)
//   --crowd_ticks_scale=F     scale the ticks each case steps (default 1; a quick run uses less)
//   --crowd_check[=N]         instead of benchmarking, step every implementation on N agents
//                             (default 2000) for 50 ticks and compare final positions with the
//                             engine's; exits non-zero when a baseline of the same model ends
//                             more than 1 cm away
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "harness.h"

namespace {

bool parse_list(const char* s, std::vector<int>& out) {
    out.clear();
    while (*s) {
        char* end;
        const long v = std::strtol(s, &end, 10);
        if (end == s || v < 1 || v > (1L << 26)) return false;
        out.push_back((int)v);
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return false;
    }
    return !out.empty();
}

bool take(const char* arg, const char* flag, const char** value) {
    const size_t n = std::strlen(flag);
    if (std::strncmp(arg, flag, n) != 0) return false;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return true;
    }
    if (arg[n] == '\0') {
        *value = nullptr;
        return true;
    }
    return false;
}

std::vector<int> default_threads() {
    const int procs = omp_get_num_procs();
    std::vector<int> t = {1, 2};
    for (int p = 4; p < procs; p *= 2) t.push_back(p);
    if (procs > 2) t.push_back(procs);
    return t;
}

} // namespace

int main(int argc, char** argv) {
    bench::Options& o = bench::options();
    o.sizes = {1000, 10000, 20000, 100000, 1000000};
    o.threads = default_threads();
    int check_agents = 0;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--help"))
            std::printf("crowd_bench [--crowd_sizes=N,N,...] [--crowd_threads=T,T,...]\n"
                        "            [--crowd_ticks_scale=F] [--crowd_check[=N]]\n");
        const char* v = nullptr;
        bool ok = true;
        if (take(argv[i], "--crowd_sizes", &v)) {
            ok = v && parse_list(v, o.sizes);
        } else if (take(argv[i], "--crowd_threads", &v)) {
            ok = v && parse_list(v, o.threads);
        } else if (take(argv[i], "--crowd_ticks_scale", &v)) {
            o.ticks_scale = v ? std::atof(v) : 0.0;
            ok = o.ticks_scale > 0.0;
        } else if (take(argv[i], "--crowd_check", &v)) {
            check_agents = v ? std::atoi(v) : 2000;
            ok = check_agents > 0;
        } else {
            argv[kept++] = argv[i];
            continue;
        }
        if (!ok) {
            std::fprintf(stderr, "crowd_bench: bad value in %s\n", argv[i]);
            return 2;
        }
    }
    argc = kept;

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::AddCustomContext("crowd_omp_procs", std::to_string(omp_get_num_procs()));
#if defined(__clang__)
    benchmark::AddCustomContext("crowd_compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    benchmark::AddCustomContext("crowd_compiler", "gcc " __VERSION__);
#endif

    bench::register_engine();
    bench::register_kernel();
    bench::register_objects();
    bench::register_brute();
#ifdef CROWD_BENCH_DETOUR
    bench::register_detour();
#endif
    if (check_agents > 0) return bench::check(check_agents, 50, 0.01);

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
