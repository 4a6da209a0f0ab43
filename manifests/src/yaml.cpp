#include "yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace netns::manifest {

namespace {

bool plain_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '/' ||
         c == '-' || c == '=' || c == '@' || c == '+' || c == ':';
}

// Words some YAML reader (1.1 or 1.2) would turn into a bool or null.
bool reserved_word(std::string_view value) {
  static constexpr std::array<std::string_view, 11> words = {
      "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "<<"};
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(words.begin(), words.end(), lower) != words.end();
}

bool needs_quotes(std::string_view value) {
  if (value.empty() || reserved_word(value)) return true;
  if (!std::all_of(value.begin(), value.end(), plain_char)) return true;
  const char first = value.front();
  // A leading digit, '.', '+' may read as a number (0123, .5, +1, 1e3, .inf).
  if (std::isdigit(static_cast<unsigned char>(first)) != 0 || first == '.' || first == '+')
    return true;
  // "-" alone is a sequence entry, "---" a document marker, "-1" a number;
  // "--flag" is plain and common in command lines, so keep it readable.
  if (first == '-' && (value.size() < 2 || value[1] != '-' || value == "---")) return true;
  if (first == ':' || first == '@' || first == '=') return true;
  if (value.back() == ':') return true;
  return false;
}

std::string double_quoted(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += fmt::format("\\x{:02x}", u);
        } else {
          out += c;  // printable ASCII, or UTF-8 bytes passed through
        }
    }
  }
  out += '"';
  return out;
}

void emit_comment(std::string& out, std::string_view comment, int indent) {
  if (comment.empty()) return;
  size_t start = 0;
  while (start <= comment.size()) {
    size_t end = comment.find('\n', start);
    if (end == std::string_view::npos) end = comment.size();
    std::string_view line = comment.substr(start, end - start);
    out.append(static_cast<size_t>(indent), ' ');
    out += line.empty() ? "#" : fmt::format("# {}", line);
    out += '\n';
    start = end + 1;
  }
}

// "|" keeps the final newline, "|-" strips it; lines are indented below.
void emit_literal(std::string& out, std::string_view text, int indent) {
  out += text.ends_with('\n') ? "|\n" : "|-\n";
  std::string_view body = text.ends_with('\n') ? text.substr(0, text.size() - 1) : text;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(start, end - start);
    if (!line.empty()) out.append(static_cast<size_t>(indent), ' ');
    out += line;
    out += '\n';
    start = end + 1;
  }
}

void emit_block(std::string& out, const Node& node, int indent);

// The value after "key:" or "-": inline for scalars and empty collections,
// on the following lines for the rest.
void emit_value_after_marker(std::string& out, const Node& value, int indent) {
  if (value.is_scalar()) {
    if (value.multiline()) {
      out += ' ';
      emit_literal(out, value.scalar_text(), indent + 2);
    } else {
      out += ' ';
      out += value.scalar_text();
      out += '\n';
    }
  } else if (value.empty()) {
    out += value.is_map() ? " {}\n" : " []\n";
  } else {
    out += '\n';
    emit_block(out, value, indent + 2);
  }
}

void emit_block(std::string& out, const Node& node, int indent) {
  for (const auto& entry : node.entries()) {
    emit_comment(out, entry.comment, indent);
    if (node.is_map()) {
      out.append(static_cast<size_t>(indent), ' ');
      out += quote_scalar(entry.key);
      out += ':';
      emit_value_after_marker(out, entry.value, indent);
      continue;
    }
    // A sequence item that is a non-empty map starts its first key on the
    // dash line: "- name: x" rather than "-\n  name: x".
    if (entry.value.is_map() && !entry.value.empty()) {
      std::string inner;
      emit_block(inner, entry.value, indent + 2);
      out.append(static_cast<size_t>(indent), ' ');
      out += "- ";
      out += inner.substr(static_cast<size_t>(indent) + 2);
      continue;
    }
    out.append(static_cast<size_t>(indent), ' ');
    out += '-';
    emit_value_after_marker(out, entry.value, indent);
  }
}

}  // namespace

std::string quote_scalar(std::string_view value) {
  return needs_quotes(value) ? double_quoted(value) : std::string(value);
}

Node Node::str(std::string_view value) {
  Node n;
  // Block literals for multi-line text (embedded JSON); a first line that
  // starts with a space would need an indentation indicator, so quote that.
  if (value.find('\n') != std::string_view::npos && !value.starts_with(' ')) {
    n.multiline_ = true;
    n.text_ = std::string(value);
  } else {
    n.text_ = quote_scalar(value);
  }
  return n;
}

Node Node::integer(std::int64_t value) {
  Node n;
  n.text_ = std::to_string(value);
  return n;
}

Node Node::boolean(bool value) {
  Node n;
  n.text_ = value ? "true" : "false";
  return n;
}

Node Node::map() {
  Node n;
  n.kind_ = Kind::map;
  return n;
}

Node Node::seq() {
  Node n;
  n.kind_ = Kind::seq;
  return n;
}

Node Node::strings(const std::vector<std::string>& values) {
  Node n = seq();
  for (const auto& v : values) n.push(str(v));
  return n;
}

Node& Node::set(std::string key, Node value, std::string comment) {
  if (kind_ != Kind::map) throw std::logic_error("yaml: set() on a non-map node");
  for (const auto& e : entries_) {
    if (e.key == key) throw std::logic_error("yaml: duplicate key " + key);
  }
  entries_.push_back(Entry{std::move(key), std::move(value), std::move(comment)});
  return *this;
}

Node& Node::push(Node value, std::string comment) {
  if (kind_ != Kind::seq) throw std::logic_error("yaml: push() on a non-sequence node");
  entries_.push_back(Entry{{}, std::move(value), std::move(comment)});
  return *this;
}

bool Node::is_map() const { return kind_ == Kind::map; }
bool Node::is_seq() const { return kind_ == Kind::seq; }
bool Node::is_scalar() const { return kind_ == Kind::scalar; }
bool Node::empty() const { return kind_ != Kind::scalar && entries_.empty(); }
const std::vector<Node::Entry>& Node::entries() const { return entries_; }
const std::string& Node::scalar_text() const { return text_; }
bool Node::multiline() const { return multiline_; }

std::string emit(const Node& doc) {
  if (doc.is_scalar()) return doc.scalar_text() + "\n";
  std::string out;
  emit_block(out, doc, 0);
  return out;
}

std::string emit_documents(const std::vector<Node>& docs, std::string_view header_comment) {
  std::string out;
  emit_comment(out, header_comment, 0);
  for (const auto& doc : docs) {
    out += "---\n";
    out += emit(doc);
  }
  return out;
}

}  // namespace netns::manifest
