#pragma once
// Maps an exception escaping a command to one message on stderr and an exit code:
// 2 for errors the user can fix (config, files, arguments), 1 for anything else.
#include <exception>

namespace sinklab::apps {

int report_exception(const std::exception& e);

}  // namespace sinklab::apps
