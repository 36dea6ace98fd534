// `trainer help [COMMAND]`, and the word a mistyped command or option was
// probably meant to be: CLI11 alone answers "trainer rnu x.yaml" with "A
// subcommand is required", and "trainer bench x.yaml --stpes 3" with "The
// following arguments were not expected: 3 --stpes", which name neither
// the command nor the option meant.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer::app {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
  return names;
}

std::string unknown_command_message(const CLI::App& app, const std::string& word) {
  const std::vector<std::string> names = command_names(app);
  const std::string nearest = nearest_word(word, names);
  return "unknown command '" + word + "'" + (nearest.empty() ? "" : "; did you mean '" + nearest + "'?") +
         "\ncommands: " + join(names, ", ") + " (trainer help COMMAND tells more)";
}

namespace {

// `command`'s options as typed: "--steps", "--log-level".
std::vector<std::string> long_option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options())
    for (const std::string& long_name : option->get_lnames()) names.push_back("--" + long_name);
  return names;
}

}  // namespace

std::optional<std::string> mistyped_command(const CLI::App& app, int argc, char** argv) {
  const std::vector<std::string> global_options = long_option_names(app);
  for (int i = 1; i < argc; ++i) {
    const char* word = argv[i];
    if (std::strcmp(word, "--log-level") == 0) {
      ++i;  // its value
      continue;
    }
    // An option before the command must be trainer's own: else its value
    // would be taken for the command ("trainer --log-levl debug run").
    const std::string flag = std::string(word).substr(0, std::string(word).find('='));
    if (flag.rfind("--", 0) == 0 && flag.size() > 2 &&
        std::find(global_options.begin(), global_options.end(), flag) == global_options.end()) {
      const std::string nearest = nearest_word(flag, global_options);
      return "trainer has no option " + flag + (nearest.empty() ? "" : "; did you mean " + nearest + "?") +
             " (a command's options follow the command: trainer run --help lists run's)";
    }
    if (word[0] == '-') continue;
    for (const std::string& name : command_names(app))
      if (name == word) return std::nullopt;
    return unknown_command_message(app, word);
  }
  return std::nullopt;
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  const CLI::App& command = chosen.empty() ? app : *chosen.front();
  const std::string name = chosen.empty() ? "trainer" : "trainer " + command.get_name();
  std::string message = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    const std::vector<std::string> options = long_option_names(command);
    for (const std::string& word : app.remaining(true)) {
      if (word.size() < 2 || word[0] != '-') continue;
      const std::string flag = word.substr(0, word.find('='));
      const std::string nearest = nearest_word(flag, options);
      message = name + " has no option " + flag + (nearest.empty() ? "" : "; did you mean " + nearest + "?");
      break;
    }
  }
  return "trainer: error: " + message + "\ntrainer: hint: " +
         (chosen.empty() ? std::string("trainer help") : "trainer help " + command.get_name()) +
         " lists the options\n";
}

void add_help_command(CLI::App& app, Action& selected) {
  auto topic = std::make_shared<std::string>();
  auto* command = app.add_subcommand("help", "Help on trainer, or on one COMMAND");
  command->add_option("COMMAND", *topic, "A command: run, eval, ...");
  command->callback([&app, topic, &selected] {
    selected = [&app, topic] {
      if (topic->empty()) {
        // app.help() would describe the selected subcommand: `help` itself.
        std::fputs(app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal).c_str(), stdout);
        return;
      }
      for (const CLI::App* sub : app.get_subcommands({}))
        if (sub->get_name() == *topic) {
          std::fputs(sub->help().c_str(), stdout);
          return;
        }
      throw UsageError(unknown_command_message(app, *topic));
    };
  });
}

}  // namespace trainer::app
