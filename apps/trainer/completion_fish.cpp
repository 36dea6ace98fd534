// `trainer completion fish`: one `complete` line per command and per
// option, with descriptions; options that take a path complete files,
// --set offers the config keys, the commands that read an experiment
// offer .yaml files.
#include "commands.h"
#include "completion_scripts.h"
#include "config/config_reference.h"
#include "util/text.h"

namespace trainer::app {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// `complete` flags naming the option and what its value is.
std::string option_line(const CLI::Option& option, const std::string& condition) {
  std::string line = "complete -c trainer" + condition;
  for (const std::string& name : option.get_lnames()) line += " -l " + name;
  for (const std::string& name : option.get_snames()) line += " -s " + name;
  bool takes_path = false;
  for (const std::string& name : option.get_lnames()) takes_path = takes_path || path_options().count("--" + name);
  for (const std::string& name : option.get_snames()) takes_path = takes_path || path_options().count("-" + name);
  const bool flag = option.get_type_size() == 0;
  if (option.get_lnames() == std::vector<std::string>{"set"})
    line += " -x -a " + quoted(join(config_keys(), "= ") + "=");
  else if (option.get_lnames() == std::vector<std::string>{"log-level"})
    line += " -x -a 'trace debug info warn error off'";
  else if (takes_path)
    line += " -r -F";
  else if (!flag)
    line += " -x";
  return line + " -d " + quoted(one_line(option.get_description())) + "\n";
}

}  // namespace

std::string fish_script(const CLI::App& app) {
  std::string script = R"(# fish completion for trainer: install it as
# ~/.config/fish/completions/trainer.fish (trainer completion fish > FILE).
# No file names unless a command or option takes them.
complete -c trainer -f
# Experiment files (.yaml, .yml) and the folders that may hold them.
function __trainer_experiment_files
    set -l token (commandline -ct)
    for file in $token*.yaml $token*.yml
        echo $file
    end
    __fish_complete_directories $token ''
end
)";
  std::vector<std::string> names = command_names(app);
  const std::string no_command = " -n 'not __fish_seen_subcommand_from " + join(names, " ") + "'";
  for (const CLI::App* command : app.get_subcommands({}))
    script += "complete -c trainer" + no_command + " -a " + command->get_name() + " -d " +
              quoted(one_line(command->get_description())) + "\n";
  for (const CLI::Option* option : app.get_options())
    if (!option->get_positional()) script += option_line(*option, "");
  script += "complete -c trainer -n '__fish_seen_subcommand_from help' -a " + quoted(join(names, " ")) + "\n";
  for (const CLI::App* command : app.get_subcommands({})) {
    const std::string condition = " -n '__fish_seen_subcommand_from " + command->get_name() + "'";
    for (const CLI::Option* option : command->get_options())
      if (!option->get_positional() && option->get_lnames() != std::vector<std::string>{"help"})
        script += option_line(*option, condition);
    // A FILE argument: experiment files and the folders that hold them.
    for (const CLI::Option* option : command->get_options())
      if (option->get_positional() && option->get_name() == "FILE") {
        script += "complete -c trainer" + condition + " -a '(__trainer_experiment_files)'\n";
        break;
      }
  }
  return script;
}

}  // namespace trainer::app
