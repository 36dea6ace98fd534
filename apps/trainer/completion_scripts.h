#pragma once
// The shell completion scripts `trainer completion SHELL` prints, each
// written from the command line's own definition (every command and
// option) and the config's declarations (every key `--set` takes), so that
// none can fall behind.
#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <vector>

namespace trainer::app {

std::string bash_script(const CLI::App& app);
std::string zsh_script(const CLI::App& app);
std::string fish_script(const CLI::App& app);

// A command's option names, "--checkpoint" and "-o" alike.
std::vector<std::string> option_names(const CLI::App& command);
// Options whose value is a path (completed as files and folders).
const std::set<std::string>& path_options();
// An option's or command's description as one short line: the first
// sentence, without line breaks.
std::string one_line(const std::string& description);

}  // namespace trainer::app
