#include "run_files/quarantine.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "run_files/checkpoint_file.h"

namespace sinklab {

namespace fs = std::filesystem;

fs::path quarantine_dir(const fs::path& sweep_dir) { return sweep_dir / "quarantine"; }

fs::path move_to_quarantine(const fs::path& file, const std::string& run_id, const fs::path& quarantine) {
  std::error_code ec;
  fs::create_directories(quarantine, ec);
  if (ec) throw std::runtime_error("cannot create quarantine folder '" + quarantine.string() + "': " + ec.message());
  const std::string name = run_id + "." + file.filename().string();
  fs::path target = quarantine / name;
  for (int n = 2; fs::exists(fs::symlink_status(target, ec)); ++n)
    target = quarantine / (name + "." + std::to_string(n));
  fs::rename(file, target, ec);
  if (ec) throw std::runtime_error("cannot move '" + file.string() + "' to '" + target.string() + "': " + ec.message());
  return target;
}

std::optional<QuarantinedFile> quarantine_damaged_checkpoint(const fs::path& run_dir, const std::string& run_id,
                                                             const fs::path& quarantine) {
  const fs::path checkpoint = run_dir / "checkpoint.bin";
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(checkpoint, ec))) return std::nullopt;
  std::string damage = checkpoint_damage(checkpoint);
  if (damage.empty()) return std::nullopt;
  return QuarantinedFile{run_id, std::move(damage), move_to_quarantine(checkpoint, run_id, quarantine)};
}

std::vector<fs::path> quarantined_files(const fs::path& sweep_dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(quarantine_dir(sweep_dir), ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace sinklab
