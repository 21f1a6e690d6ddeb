#include "apps/unknown_arguments.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "config_loading/closest_match.h"

namespace sinklab::apps {
namespace {

// "-x", "--name" or "--name=value" (a lone "-" or a negative number is a value).
bool looks_like_flag(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && std::isdigit(static_cast<unsigned char>(arg[1])) == 0 && arg[1] != '.';
}

std::string without_dashes(const std::string& name) {
  return name.substr(std::min(name.find_first_not_of('-'), name.size()));
}

// Every flag `app` takes, as typed: --long and -s.
std::vector<std::string> flags_of(const CLI::App& app) {
  std::vector<std::string> flags;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
    for (const std::string& name : option->get_snames()) flags.push_back("-" + name);
  }
  return flags;
}

std::string unknown_flag(const std::string& arg, const CLI::App& app, const std::string& where) {
  const std::string flag = arg.substr(0, arg.find('='));
  const std::vector<std::string> known = flags_of(app);
  // Compared without their dashes, so "-threads" is one edit from "--threads", as "--thread" is.
  std::vector<std::string> bare;
  for (const std::string& k : known) bare.push_back(without_dashes(k));
  std::string message = "unknown flag '" + flag + "'" + where;
  if (const auto guess = closest_match(without_dashes(flag), bare)) {
    for (size_t i = 0; i < bare.size(); ++i)
      if (bare[i] == *guess) return message + "; did you mean '" + known[i] + "'?";
  }
  return message + " (flags: " + join_names(known) + ")";
}

std::string unknown_command(const std::string& word, const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
    names.push_back(sub->get_name());
  std::string message = "unknown command '" + word + "'";
  if (const auto guess = closest_match(word, names)) message += "; did you mean '" + *guess + "'?";
  return message + " (commands: " + join_names(names) + ")";
}

}  // namespace

std::optional<std::string> unknown_argument_message(const CLI::App& app) {
  // The innermost subcommand given: its own leftovers are what it did not know.
  const CLI::App* given = &app;
  std::string path;
  while (!given->get_subcommands().empty()) {
    given = given->get_subcommands().front();
    path += (path.empty() ? "" : " ") + given->get_name();
  }
  const std::vector<std::string> leftovers = given->remaining();
  for (const std::string& arg : leftovers)
    if (looks_like_flag(arg)) return unknown_flag(arg, *given, path.empty() ? "" : " for '" + path + "'");
  if (given == &app && !leftovers.empty()) return unknown_command(leftovers.front(), app);
  return std::nullopt;
}

}  // namespace sinklab::apps
