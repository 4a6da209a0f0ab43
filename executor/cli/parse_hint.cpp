#include "parse_hint.hpp"

#include <algorithm>

#include "netns/error.hpp"

namespace netns::cli {

namespace {

// Edits to turn a into b: insertions, deletions, substitutions and swaps of
// two neighbours ("rnu" is one edit from "run"), each counting 1.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (!sub->get_name().empty()) out.push_back(sub->get_name());
  return out;
}

// Every long option of `app` and of its option groups (CLI11's nameless
// subcommands), with the dashes.
std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options())
    for (const std::string& name : opt->get_lnames()) out.push_back("--" + name);
  for (const CLI::App* group :
       app.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); })) {
    auto more = long_options(*group);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

bool has_long_option(const CLI::App& app, const std::string& dashed) {
  auto names = long_options(app);
  return std::find(names.begin(), names.end(), dashed) != names.end();
}

// The global options that take a value: their value is not a subcommand.
bool takes_value(const CLI::App& app, std::string_view arg) {
  if (arg.find('=') != std::string_view::npos) return false;
  const CLI::Option* opt = app.get_option_no_throw(std::string(arg));
  return opt != nullptr && opt->get_type_size() != 0;
}

std::string with_hint(const std::string& what, const std::optional<std::string>& hint) {
  return hint ? what + " (did you mean " + quote(*hint) + "?)" : what;
}

}  // namespace

std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance || (!best && c.rfind(word, 0) == 0 && !word.empty())) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& error, int argc,
                                 char** argv) {
  const std::string help = "; see netns-exec --help";
  // The first word that is neither an option nor a global option's value is
  // the subcommand.
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("-", 0) == 0) {
      // An option netns-exec does not have, before any subcommand: name it
      // (its value, if it has one, is not a subcommand either).
      std::string name(arg.substr(0, arg.find('=')));
      if (name.rfind("--", 0) == 0 && name != "--help" && name != "--version" &&
          !has_long_option(app, name)) {
        if (auto hint = closest_name(name, long_options(app)))
          return with_hint("unknown option " + quote(name), hint) + help;
        return std::string(error.what()) + help;  // CLI11's words, redacted by the caller
      }
      if (takes_value(app, arg)) ++i;
      continue;
    }
    break;
  }
  if (i >= argc || std::string_view(argv[i]) == "--") {
    for (int k = 1; k < argc; ++k) {
      std::string arg = argv[k];
      if (arg.rfind("--", 0) != 0 || arg == "--") continue;
      arg = arg.substr(0, arg.find('='));
      if (arg != "--help" && arg != "--version" && !has_long_option(app, arg))
        return with_hint("unknown option " + quote(arg), closest_name(arg, long_options(app))) +
               help;
    }
    return std::string(error.what()) + help;
  }
  const std::string word = argv[i];
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (s->get_name() == word) sub = s;
  if (sub == nullptr)
    return with_hint("unknown subcommand " + quote(word),
                     closest_name(word, subcommand_names(app))) +
           help;
  // A known subcommand: an option it does not have (up to "--", after which
  // everything is the command's).
  for (int k = i + 1; k < argc; ++k) {
    std::string arg = argv[k];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    arg = arg.substr(0, arg.find('='));
    if (!has_long_option(*sub, arg) && !has_long_option(app, arg))
      return with_hint(word + ": unknown option " + quote(arg),
                       closest_name(arg, long_options(*sub))) +
             "; see netns-exec " + word + " --help";
  }
  return std::string(error.what()) + help;
}

}  // namespace netns::cli
