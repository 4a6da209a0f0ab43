#pragma once
// What to tell the user when CLI11 rejects the command line: for a mistyped
// subcommand or option, the closest known name ("did you mean ...?") instead
// of CLI11's generic "A subcommand is required". Only names are echoed,
// never an option's value (it could be a key).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netns::cli {

// The candidate closest to `word` by edit distance, if it is close enough to
// be a typo (at most a third of the word's length, at least 1, wrong).
std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

// One line for a parse error of `app` on argv: CLI11's message, or, when an
// unknown subcommand or option explains it, that name and the suggestion.
std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& error, int argc,
                                 char** argv);

}  // namespace netns::cli
