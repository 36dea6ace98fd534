// `trainer completion zsh`: commands and options with their descriptions
// (_describe), --log-level's levels, --set's config keys, path options as
// files, experiment files otherwise. Works autoloaded from $fpath as
// `_trainer` and sourced alike.
#include "commands.h"
#include "completion_scripts.h"
#include "config/config_reference.h"
#include "util/text.h"

namespace trainer::app {
namespace {

// 'NAME:DESCRIPTION' for _describe: a colon in the name escaped, the whole
// single-quoted.
std::string described(const std::string& name, const std::string& description) {
  std::string item;
  for (char c : name) item += c == ':' ? std::string("\\:") : std::string(1, c);
  item += ":" + one_line(description);
  std::string quoted = "'";
  for (char c : item) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string options_of(const CLI::App& command) {
  std::string items;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional()) continue;
    std::vector<std::string> names;
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    for (const std::string& name : names) items += "\n      " + described(name, option->get_description());
  }
  return items;
}

}  // namespace

std::string zsh_script(const CLI::App& app) {
  std::string commands;
  for (const CLI::App* command : app.get_subcommands({}))
    commands += "\n    " + described(command->get_name(), command->get_description());
  std::string cases;
  for (const CLI::App* command : app.get_subcommands({}))
    cases += "    " + command->get_name() + ") options=(" + options_of(*command) + "\n    ) ;;\n";
  std::string path_case;
  for (const std::string& option : path_options()) path_case += (path_case.empty() ? "" : "|") + option;
  return R"(#compdef trainer
# zsh completion for trainer: install it as _trainer in a folder of $fpath
# (trainer completion zsh > ~/.zfunc/_trainer, with fpath+=~/.zfunc before
# compinit), or source it after compinit.
_trainer() {
  local -a commands keys options
  commands=()" + commands + R"(
  )
  keys=()" + join(config_keys(), " ") + R"()
  local command='' i
  for ((i = 2; i < CURRENT; i++)); do
    case ${words[i]} in
      --log-level) ((i++)) ;;
      -*) ;;
      *) command=${words[i]}; break ;;
    esac
  done
  case ${words[CURRENT-1]} in
    --log-level) compadd -- trace debug info warn error off; return ;;
    --set) compadd -S = -- $keys; return ;;
    )" + path_case + R"() _files; return ;;
  esac
  if [[ -z $command ]]; then
    if [[ ${words[CURRENT]} == -* ]]; then
      compadd -- --help --version --log-level --quiet -q
    else
      _describe -t commands 'trainer command' commands
    fi
    return
  fi
  case $command in
)" + cases + R"(  esac
  if [[ $command == help ]]; then
    _describe -t commands 'trainer command' commands
  elif [[ ${words[CURRENT]} == -* ]]; then
    _describe -t options 'option' options
  else
    # Experiment files and the folders that may hold them.
    _files -g '*.(yaml|yml)'
  fi
}
if [[ $funcstack[1] == _trainer ]]; then
  _trainer "$@"
else
  compdef _trainer trainer
fi
)";
}

}  // namespace trainer::app
