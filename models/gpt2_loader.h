#pragma once
// GPT-2 (124M .. 1.5B) from a Hugging Face `model.safetensors` file on its own (`sinklab probe --gpt2`),
// as an ordinary sinklab Model, so every analysis that takes a Model (observers, probes, sink
// statistics) runs on it. docs/gpt2.md has the steps a user with the real weights takes. The sizes come
// from the tensors' shapes and the heads from a config.json beside the file, the --heads option or the
// width; the model is then built by the GPT-2 family of the open-model loader
// (models/open_models/gpt2_family.cpp), which a whole model folder goes through (docs/open-models.md).
//
// GPT-2 in sinklab's terms (the model config gpt2_run_config builds):
//   token embedding wte [V, C] (model.input: tokens), learned positions wpe [P, C];
//   per block: x += c_proj(Attn(ln_1(x))), x += mlp.c_proj(gelu_tanh(mlp.c_fc(ln_2(x)))) (pre-LN,
//   model.norm: layer_norm, eps 1e-5, biases everywhere, model.mlp_activation: gelu_tanh);
//   attention: H heads of C/H (head_dim: split), scores times 1/sqrt(C/H), softmax, causal;
//   final ln_f, then logits = h wte^T (model.tie_embeddings).
// Hugging Face stores the projections as Conv1D, y = x W + b with W [in, out]; sinklab's Linear is
// PyTorch's [out, in]. c_attn's W [C, 3C] holds q | k | v side by side: each third, transposed, becomes
// w_q, w_k, w_v (head h = rows h*C/H .. of each, as in both).
#include <filesystem>
#include <memory>
#include <string>

#include "models/model.h"
#include "run_files/run_summary.h"  // RunFileError

namespace sinklab {

// A config.json beside the weights that contradicts them, or heads that cannot be known.
class Gpt2Error : public RunFileError {
 public:
  using RunFileError::RunFileError;
};

struct Gpt2Options {
  // Attention heads: 0 = n_head of a config.json beside the file, else GPT-2's for the width
  // (gpt2_heads_for_width); > 0 = this number (a --heads flag), which a config.json must not contradict.
  int heads = 0;
  int threads = 1;  // RunConfig::threads of the model (OpenMP threads of whoever runs it)
};

struct Gpt2Model {
  std::unique_ptr<Model> model;  // model->shape(): output_dim = vocab, max_seq_len = n_positions
  int n_layer = 0, n_head = 0, n_positions = 0, vocab = 0, d_model = 0, mlp_hidden = 0;
  std::string heads_from;  // where n_head came from: "config.json", "the heads option" or "the width"
};

// The weights of `path` (the Hugging Face keys "transformer.h.0.ln_1.weight" ... or "h.0.ln_1.weight"
// ...; the causal-mask buffers attn.bias / attn.masked_bias are skipped; a lm_head.weight must equal
// wte). Reads one tensor at a time (F32, F16 or BF16), so the peak is the model plus one tensor.
// Throws SafetensorsError naming the file and the tensor (missing, wrong shape, wrong dtype, a tensor
// GPT-2 does not have, a damaged file), FileReadError for a file that cannot be read, Gpt2Error for the
// heads or the config.json.
Gpt2Model load_gpt2(const std::filesystem::path& path, const Gpt2Options& options = {});

// GPT-2's heads for its four widths (768 -> 12, 1024 -> 16, 1280 -> 20, 1600 -> 25), 0 for others.
int gpt2_heads_for_width(int d_model);

// The run config of a GPT-2 with these sizes: the model section above; task, optimizer and training
// keys keep their defaults and mean nothing (the model reads token ids directly: forward_tokens).
RunConfig gpt2_run_config(int d_model, int n_layer, int n_head, int mlp_hidden, int n_positions, int vocab,
                          int threads = 1);

}  // namespace sinklab
