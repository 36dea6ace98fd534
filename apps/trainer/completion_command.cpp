// `trainer completion bash|zsh|fish`: prints the shell's completion script.
#include <iostream>
#include <memory>

#include "commands.h"
#include "completion_scripts.h"
#include "util/error.h"

namespace trainer::app {

void add_completion_command(CLI::App& app, Action& selected) {
  auto shell = std::make_shared<std::string>();
  auto* command = app.add_subcommand(
      "completion", "Print a shell completion script: trainer completion bash (or zsh, fish)");
  command->add_option("SHELL", *shell, "bash, zsh or fish")->required();
  command->callback([&app, shell, &selected] {
    selected = [&app, shell] {
      if (*shell == "bash") std::cout << bash_script(app);
      else if (*shell == "zsh") std::cout << zsh_script(app);
      else if (*shell == "fish") std::cout << fish_script(app);
      else throw UsageError("no completion for shell '" + *shell + "'; bash, zsh and fish are supported");
    };
  });
}

}  // namespace trainer::app
