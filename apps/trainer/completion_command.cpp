// `trainer completion bash`: a bash completion script written from the
// command line's own definition (every command and option) and the config's
// declarations (every key `--set` takes), so that it cannot fall behind.
#include <iostream>
#include <memory>
#include <set>

#include "commands.h"
#include "config/config_reference.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer::app {
namespace {

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional()) continue;
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// Options whose value is a path (completed as files and folders).
const std::set<std::string>& path_options() {
  static const std::set<std::string> options{"--checkpoint", "--resume", "--run-dir", "--input", "--output", "-o"};
  return options;
}

std::string bash_script(const CLI::App& app) {
  std::string cases;
  for (const CLI::App* command : app.get_subcommands({}))
    cases += "    " + command->get_name() + ") options='" + join(option_names(*command), " ") + "' ;;\n";
  std::string path_case;
  for (const std::string& option : path_options()) path_case += (path_case.empty() ? "" : "|") + option;
  return R"(# bash completion for trainer: source it, or install it as
# /usr/share/bash-completion/completions/trainer (trainer completion bash > FILE).
_trainer() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands=')" + join(command_names(app), " ") + R"('
  local keys=')" + join(config_keys(), " ") + R"('
  local command='' i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --log-level) ((i++)) ;;
      -*) ;;
      *) command=${COMP_WORDS[i]}; break ;;
    esac
  done
  case $prev in
    --log-level) COMPREPLY=($(compgen -W 'trace debug info warn error off' -- "$cur")); return ;;
    --set) compopt -o nospace 2>/dev/null; COMPREPLY=($(compgen -S = -W "$keys" -- "$cur")); return ;;
    )" + path_case + R"() COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ -z $command ]]; then
    COMPREPLY=($(compgen -W "$commands --help --version --log-level --quiet -q" -- "$cur"))
    return
  fi
  local options=''
  case $command in
)" + cases + R"(  esac
  if [[ $command == help ]]; then
    COMPREPLY=($(compgen -W "$commands" -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  else
    # Experiment files and the folders that may hold them.
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -X '!*.@(yaml|yml)' -- "$cur") $(compgen -d -- "$cur"))
  fi
}
complete -F _trainer trainer
)";
}

}  // namespace

void add_completion_command(CLI::App& app, Action& selected) {
  auto shell = std::make_shared<std::string>();
  auto* command = app.add_subcommand("completion", "Print a shell completion script: trainer completion bash");
  command->add_option("SHELL", *shell, "bash")->required();
  command->callback([&app, shell, &selected] {
    selected = [&app, shell] {
      if (*shell != "bash") throw UsageError("no completion for shell '" + *shell + "'; bash is supported");
      std::cout << bash_script(app);
    };
  });
}

}  // namespace trainer::app
