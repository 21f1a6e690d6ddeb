#pragma once
// "Did you mean ...?" for the command line, as the config loader gives for keys: after CLI11 refused
// the arguments, names the first unknown command or flag and the nearest known one, e.g.
//   unknown command 'trian'; did you mean 'train'? (commands: train, compare, ...)
//   unknown flag '--thread' for 'train'; did you mean '--threads'?
// Flags are looked up in the subcommand that was given, whichever it is.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace sinklab::apps {

// The message for a failed parse of `app` whose leftovers hold an unknown command or flag; nullopt
// when the failure is something else (a missing value, a bad number), which CLI11 words well itself.
std::optional<std::string> unknown_argument_message(const CLI::App& app);

}  // namespace sinklab::apps
