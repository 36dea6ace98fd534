// `trainer completion bash`: COMPREPLY from the commands, each command's
// options, --log-level's levels, --set's config keys, and experiment files.
#include "commands.h"
#include "completion_scripts.h"
#include "config/config_reference.h"
#include "util/text.h"

namespace trainer::app {

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

}  // namespace trainer::app
