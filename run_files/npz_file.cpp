#include "run_files/npz_file.h"

#include <zip.h>

#include <memory>
#include <set>

#include "core/io/file_write.h"
#include "run_files/npy.h"

namespace sinklab {
namespace {

// 1980-01-01 00:00, the earliest MS-DOS date: no clock or time zone reaches the bytes.
constexpr zip_uint16_t kDosTime = 0;
constexpr zip_uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;

[[noreturn]] void fail(const std::string& where, const std::string& why) {
  throw NpzError("npz file " + where + ": " + why);
}

std::string zip_problem(zip_t* archive) { return zip_strerror(archive); }

// Adds one stored entry whose bytes stay owned by the caller until the archive is closed.
void add_entry(zip_t* archive, const std::string& name, const std::string& bytes, const std::string& where) {
  zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
  if (source == nullptr) fail(where, "entry " + name + ": " + zip_problem(archive));
  const zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
  if (index < 0) {
    zip_source_free(source);
    fail(where, "entry " + name + ": " + zip_problem(archive));
  }
  const auto i = static_cast<zip_uint64_t>(index);
  if (zip_set_file_compression(archive, i, ZIP_CM_STORE, 0) != 0 ||
      zip_file_set_dostime(archive, i, kDosTime, kDosDate, 0) != 0)
    fail(where, "entry " + name + ": " + zip_problem(archive));
}

}  // namespace

std::string encode_npz(const std::vector<NamedTensor>& tensors, const NpzTextEntries& texts, const std::string& where) {
  // Every entry's bytes, kept alive until zip_close has copied them into the archive.
  std::vector<std::pair<std::string, std::string>> entries;
  std::set<std::string> names;
  const auto add = [&](std::string name, std::string bytes) {
    if (name.empty()) fail(where, "an entry has an empty name");
    if (!names.insert(name).second) fail(where, "entry " + name + " is given twice");
    entries.emplace_back(std::move(name), std::move(bytes));
  };
  for (const NamedTensor& t : tensors) {
    if (t.name.empty()) fail(where, "a tensor has an empty name");
    try {
      add(t.name + ".npy", encode_npy(t.values, t.shape, where + " entry " + t.name + ".npy"));
    } catch (const NpyError& e) {
      fail(where, e.what());
    }
  }
  for (const auto& [name, text] : texts) add(name, text);

  // The archive is built in memory, so that the file itself is written atomically.
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* memory = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (memory == nullptr) fail(where, std::string("cannot start an archive: ") + zip_error_strerror(&error));
  const std::unique_ptr<zip_source_t, decltype(&zip_source_free)> memory_owner(memory, zip_source_free);
  zip_source_keep(memory);  // the archive releases its reference on close; ours reads the result
  zip_t* archive = zip_open_from_source(memory, ZIP_TRUNCATE, &error);
  if (archive == nullptr) {
    zip_source_free(memory);  // the reference zip_open_from_source did not take
    fail(where, std::string("cannot start an archive: ") + zip_error_strerror(&error));
  }
  try {
    for (const auto& [name, bytes] : entries) add_entry(archive, name, bytes, where);
  } catch (...) {
    zip_discard(archive);
    throw;
  }
  if (zip_close(archive) != 0) {
    const std::string why = zip_problem(archive);
    zip_discard(archive);
    fail(where, "cannot finish the archive: " + why);
  }

  if (zip_source_open(memory) != 0) fail(where, "cannot read the finished archive back");
  std::string out;
  if (zip_source_seek(memory, 0, SEEK_END) == 0) {
    const zip_int64_t size = zip_source_tell(memory);
    if (size > 0 && zip_source_seek(memory, 0, SEEK_SET) == 0) {
      out.resize(static_cast<size_t>(size));
      if (zip_source_read(memory, out.data(), out.size()) != size) out.clear();
    }
  }
  zip_source_close(memory);
  if (out.empty()) fail(where, "cannot read the finished archive back");
  return out;
}

void write_npz(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
               const NpzTextEntries& texts) {
  write_file_atomically(path, encode_npz(tensors, texts, path.string()));
}

}  // namespace sinklab
