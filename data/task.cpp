#include "data/task.h"

namespace sinklab {

TaskShape next_token_shape(int seq_len, int vocab_size, std::string width_key, std::string width_text) {
  TaskShape s;
  s.input = TaskInput::tokens;
  s.seq_len = seq_len;
  s.input_dim = s.output_dim = vocab_size;
  s.loss = TaskLoss::cross_entropy;
  s.width_key = std::move(width_key);
  s.width_text = std::move(width_text);
  return s;
}
namespace {

template <typename T>
std::vector<T> sized(bool used, std::size_t n) {
  return used ? std::vector<T>(n) : std::vector<T>();
}

template <typename T>
T* data_or_null(std::vector<T>& v) {
  return v.empty() ? nullptr : v.data();
}

}  // namespace

BatchBuffers::BatchBuffers(const TaskShape& s, int b) : shape(s), batch(b) {
  const auto positions = static_cast<std::size_t>(b) * static_cast<std::size_t>(s.seq_len);
  const bool vectors = s.input == TaskInput::vectors, mse = s.loss == TaskLoss::mse;
  inputs = sized<float>(vectors, positions * static_cast<std::size_t>(s.input_dim));
  input_ids = sized<int32_t>(!vectors, positions);
  targets = sized<float>(mse, positions * static_cast<std::size_t>(s.output_dim));
  target_ids = sized<int32_t>(!mse, positions);
  roles.resize(positions);
}

BatchView BatchBuffers::view() {
  return {data_or_null(inputs), data_or_null(input_ids), data_or_null(targets), data_or_null(target_ids), roles.data()};
}

ConstBatchView BatchBuffers::view(int first, int) const {
  const auto positions = static_cast<std::size_t>(first) * static_cast<std::size_t>(shape.seq_len);
  const auto offset = [&](const auto& v, std::size_t width) {
    return v.empty() ? nullptr : v.data() + positions * width;
  };
  return {offset(inputs, static_cast<std::size_t>(shape.input_dim)), offset(input_ids, 1),
          offset(targets, static_cast<std::size_t>(shape.output_dim)), offset(target_ids, 1), roles.data() + positions};
}

}  // namespace sinklab
