// Verilator harness for bloomforge co-simulation and benchmarks.
// (BF_CLK, from the generated header, is the design's clock port: clk unless the design names it.)
//
// The design-specific part (model type, port widths, how to copy a stimulus row into the ports
// and the ports into an output row) comes from the generated header bf_ports.h, written by
// sim/cosim/verilator.ts next to the build.
//
// Usage: harness MODE CYCLES STIM.bin OUT.bin [TRACE.vcd]
//   MODE trace: run CYCLES cycles, write every cycle's outputs to OUT.bin (and a VCD if given)
//   MODE bench: same loop, timed, after loading the stimulus; prints one JSON line
// Files are little-endian 32-bit words: STIM has CYCLES rows of BF_IN_WORDS, OUT CYCLES rows of
// BF_OUT_WORDS. Cycle protocol (same as the TS simulator): set inputs with clk low, evaluate,
// sample outputs, raise clk, evaluate. VCD times: 10*c (inputs applied), 10*c+5 (rising edge).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif
#include "bf_ports.h"

static std::vector<uint32_t> load(const char* path, size_t words) {
  std::vector<uint32_t> v(words ? words : 1);
  FILE* f = std::fopen(path, "rb");
  if (!f) { std::fprintf(stderr, "harness: cannot open %s\n", path); std::exit(2); }
  size_t got = std::fread(v.data(), 4, words, f);
  std::fclose(f);
  if (got != words) { std::fprintf(stderr, "harness: %s has %zu words, expected %zu\n", path, got, words); std::exit(2); }
  return v;
}

int main(int argc, char** argv) {
  if (argc < 5) { std::fprintf(stderr, "usage: %s trace|bench CYCLES STIM OUT [VCD]\n", argv[0]); return 2; }
  const bool bench = std::strcmp(argv[1], "bench") == 0;
  const size_t cycles = std::strtoull(argv[2], nullptr, 10);
  std::vector<uint32_t> stim = load(argv[3], cycles * BF_IN_WORDS);
  std::vector<uint32_t> out(cycles * BF_OUT_WORDS + 1, 0);

  VerilatedContext* ctx = new VerilatedContext;
  ctx->commandArgs(0, (const char**)nullptr);
  Model* top = new Model{ctx};
#if VM_TRACE
  VerilatedVcdC* tfp = nullptr;
  if (argc > 5) {
    ctx->traceEverOn(true);
    tfp = new VerilatedVcdC;
    top->trace(tfp, 99);
    tfp->open(argv[5]);
  }
#endif
  auto t0 = std::chrono::steady_clock::now();
  for (size_t c = 0; c < cycles; c++) {
    bf_set_inputs(top, &stim[c * BF_IN_WORDS]);
#if BF_HAS_CLK
    top->BF_CLK = 0;
#endif
    top->eval();
#if VM_TRACE
    if (tfp) tfp->dump((uint64_t)(10 * c));
#endif
    bf_get_outputs(top, &out[c * BF_OUT_WORDS]);
#if BF_HAS_CLK
    top->BF_CLK = 1;
    top->eval();
#endif
#if VM_TRACE
    if (tfp) tfp->dump((uint64_t)(10 * c + 5));
#endif
  }
  auto t1 = std::chrono::steady_clock::now();
#if VM_TRACE
  if (tfp) { tfp->dump((uint64_t)(10 * cycles)); tfp->close(); }
#endif
  top->final();
  if (bench) {
    double s = std::chrono::duration<double>(t1 - t0).count();
    uint32_t sum = 0;
    for (uint32_t w : out) sum = sum * 31u + w;
    std::printf("{\"cycles\":%zu,\"seconds\":%.9f,\"cyclesPerSec\":%.1f,\"checksum\":%u}\n", cycles, s, cycles / s, sum);
  }
  FILE* f = std::fopen(argv[4], "wb");
  if (!f) { std::fprintf(stderr, "harness: cannot write %s\n", argv[4]); return 2; }
  std::fwrite(out.data(), 4, cycles * BF_OUT_WORDS, f);
  std::fclose(f);
  delete top;
  delete ctx;
  return 0;
}
