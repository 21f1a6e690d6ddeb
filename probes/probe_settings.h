#pragma once
// What `sinklab probe` measures (its flags, docs in apps/probe_command.cpp), checked before any model is
// read: every list parsed whole, every value in range, one std::invalid_argument naming the flag.
#include <cstdint>
#include <string>
#include <vector>

namespace sinklab::probes {

enum class VectorKind { value, hidden };        // x_k: the head's value v_k, or the attention input row
enum class DistanceKind { r1, r2 };            // what P3 tests: d_true or d_r2
enum class ExpectationKind { main, mc };       // what P3 tests against: E_main or E_mc

struct ProbeSettings {
  std::vector<int> lengths;  // L grid (ascending); empty = powers of two from 32 up to the model's length
  std::vector<int> n_values{1, 2, 4, 5, 8, 10, 16, 20, 32, 64, 100};  // P2 vs N and P4 (those <= 64)
  int windows = 4;
  VectorKind vectors = VectorKind::value;
  DistanceKind distance = DistanceKind::r1;
  ExpectationKind expectation = ExpectationKind::main;
  int mc_samples = 64;
  double ks_alpha = 0.01;
  std::vector<double> temperatures;  // P5, ascending
  std::vector<double> eps{1e-3, 1e-1, 10.0};
  int threads = 0;                   // 0: the run's (or OpenMP's default)
  uint64_t seed = 0;                 // P5 directions, E_mc subsets, synthetic rows
};

// The raw flag texts, as the command line gives them.
struct ProbeFlagTexts {
  std::string lengths, n_values, windows = "4", vectors = "value", distance = "r1", expectation = "main",
                       mc_samples = "64", ks_alpha = "0.01", temperatures = "1e-3:1e2:26", eps = "1e-3,1e-1,10",
                       threads = "0", seed = "0";
};

ProbeSettings parse_probe_settings(const ProbeFlagTexts& flags);

// "a,b,c" of whole numbers in [lo, hi], ascending and distinct; "a,b,...,c" continues the ratio b/a
// (32,64,...,1024 doubles). Throws std::invalid_argument naming `flag`.
std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi);
// "x,y,z" of positive numbers, or "lo:hi:count", count log-spaced values from lo to hi.
std::vector<double> parse_positive_list(const std::string& flag, const std::string& text);

// The default L grid for a model of `max_len` positions: 32, 64, ... <= max_len (max_len itself when below 32).
std::vector<int> default_lengths(int max_len);
// P3's N grid at length L: 1 .. 16, then x1.5 (rounded up) while <= L / 4; only N < L.
std::vector<int> critical_n_grid(int L);

}  // namespace sinklab::probes
