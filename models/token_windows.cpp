#include "models/token_windows.h"

#include <string>

#include "run_files/npy.h"

namespace sinklab {

TokenWindows read_token_windows(const std::filesystem::path& path, int vocab, int max_length) {
  const auto fail = [&](const std::string& why) { throw NpyError("token ids " + path.string() + ": " + why); };
  const NpyIntArray array = read_npy_integers(path);
  if (array.shape.size() != 1 && array.shape.size() != 2)
    fail("expected a 1-D array [L] or a 2-D array [windows, L] of token ids, got rank " +
         std::to_string(array.shape.size()));
  TokenWindows t;
  t.windows = array.shape.size() == 2 ? array.shape[0] : 1;
  t.length = array.shape.back();
  if (t.windows < 1 || t.length < 1) fail("holds no tokens");
  if (t.length > max_length)
    fail("windows of " + std::to_string(t.length) + " tokens are longer than the model's " +
         std::to_string(max_length) + " positions; cut them (e.g. ids[:, :" + std::to_string(max_length) + "])");
  t.ids.resize(array.data.size());
  for (size_t i = 0; i < array.data.size(); ++i) {
    const int64_t id = array.data[i];
    if (id < 0 || id >= vocab)
      fail("id " + std::to_string(id) + " at window " + std::to_string(static_cast<int64_t>(i) / t.length) +
           ", position " + std::to_string(static_cast<int64_t>(i) % t.length) + " is outside the vocabulary [0, " +
           std::to_string(vocab) + ")");
    t.ids[i] = static_cast<int32_t>(id);
  }
  return t;
}

}  // namespace sinklab
