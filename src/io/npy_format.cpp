// .npy headers: a small reader of the Python literals numpy writes (strings, integers, True,
// False, None, tuples, lists, dicts), enough for the header dict and structured dtypes.
#include "io/npy_format.hpp"

#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>

#include "xpose/error.hpp"

namespace xpose::detail::io {

namespace {

/// Numpy pads headers so that the data starts at a multiple of this.
constexpr std::size_t npy_align = 64;

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw error(status::invalid_argument, name + ": not a .npy file numpy could read: " + what);
}

/// One Python literal: its kind, its text span in the source, and its parts.
struct literal {
  enum class kind { string, integer, boolean, none, sequence, dict } what = kind::none;
  std::string_view text;  ///< the literal as written
  std::string string_value;
  std::int64_t integer_value = 0;
  bool boolean_value = false;
  std::vector<literal> items;  ///< sequence items, or dict keys and values alternately
};

class literal_reader {
 public:
  explicit literal_reader(std::string_view source) : source_(source) {}

  literal read_value() {
    skip_space();
    const std::size_t start = at_;
    literal value;
    if (at_ >= source_.size()) fail("the text ends where a value belongs");
    const char c = source_[at_];
    if (c == '\'' || c == '"') {
      value.what = literal::kind::string;
      value.string_value = read_string();
    } else if (c == '(' || c == '[') {
      value.what = literal::kind::sequence;
      const char close = c == '(' ? ')' : ']';
      ++at_;
      for (;;) {
        skip_space();
        if (peek() == close) {
          ++at_;
          break;
        }
        value.items.push_back(read_value());
        skip_space();
        if (peek() == ',') {
          ++at_;
        } else if (peek() != close) {
          fail(std::string("expected ',' or '") + close + "'");
        }
      }
    } else if (c == '{') {
      value.what = literal::kind::dict;
      ++at_;
      for (;;) {
        skip_space();
        if (peek() == '}') {
          ++at_;
          break;
        }
        value.items.push_back(read_value());
        skip_space();
        if (peek() != ':') fail("expected ':' in the dict");
        ++at_;
        value.items.push_back(read_value());
        skip_space();
        if (peek() == ',') {
          ++at_;
        } else if (peek() != '}') {
          fail("expected ',' or '}' in the dict");
        }
      }
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      value.what = literal::kind::integer;
      std::size_t end = at_ + 1;
      while (end < source_.size() && std::isdigit(static_cast<unsigned char>(source_[end]))) ++end;
      const auto [ptr, failure] =
          std::from_chars(source_.data() + at_, source_.data() + end, value.integer_value);
      if (failure != std::errc{} || ptr != source_.data() + end) fail("an integer out of range");
      at_ = end;
      // Python 2 longs ("3L"), as old numpy versions wrote them.
      if (at_ < source_.size() && (source_[at_] == 'L' || source_[at_] == 'l')) ++at_;
    } else if (consume_word("True")) {
      value.what = literal::kind::boolean;
      value.boolean_value = true;
    } else if (consume_word("False")) {
      value.what = literal::kind::boolean;
    } else if (consume_word("None")) {
      value.what = literal::kind::none;
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    value.text = source_.substr(start, at_ - start);
    return value;
  }

  void expect_end() {
    skip_space();
    if (at_ != source_.size()) fail("text after the value");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw error(status::invalid_argument,
                what + " at offset " + std::to_string(at_) + " of '" + std::string(source_) + "'");
  }

 private:
  char peek() const { return at_ < source_.size() ? source_[at_] : '\0'; }

  void skip_space() {
    while (at_ < source_.size() && std::isspace(static_cast<unsigned char>(source_[at_]))) ++at_;
  }

  bool consume_word(std::string_view word) {
    if (source_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  std::string read_string() {
    const char quote = source_[at_++];
    std::string text;
    while (at_ < source_.size() && source_[at_] != quote) {
      if (source_[at_] == '\\' && at_ + 1 < source_.size()) ++at_;
      text += source_[at_++];
    }
    if (at_ >= source_.size()) fail("an unterminated string");
    ++at_;
    return text;
  }

  std::string_view source_;
  std::size_t at_ = 0;
};

literal parse_literal(std::string_view text) {
  literal_reader reader(text);
  literal value = reader.read_value();
  reader.expect_end();
  return value;
}

std::size_t checked_multiply(std::size_t a, std::size_t b, std::string_view what) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a)
    throw error(status::invalid_argument, "the size of dtype " + std::string(what) + " overflows");
  return a * b;
}

/// Bytes of a type string such as '<f4', '|V12', '<U3' (4 bytes a character), '<M8[ns]'.
std::size_t type_string_size(std::string_view type) {
  std::string_view t = type;
  if (!t.empty() && (t[0] == '<' || t[0] == '>' || t[0] == '|' || t[0] == '=')) t.remove_prefix(1);
  if (const auto bracket = t.find('['); bracket != std::string_view::npos)
    t = t.substr(0, bracket);  // datetime units
  if (t.empty()) throw error(status::invalid_argument, "empty type string");
  const char kind = t[0];
  if (kind == 'O')
    throw error(status::invalid_argument,
                "object arrays (dtype '" + std::string(type) +
                    "') hold pointers to Python objects, not values: they cannot be transposed");
  if (std::strchr("biufcmMVSUa", kind) == nullptr || t.size() < 2)
    throw error(status::invalid_argument, "unknown type string '" + std::string(type) + "'");
  std::size_t count = 0;
  const auto [ptr, failure] = std::from_chars(t.data() + 1, t.data() + t.size(), count);
  if (failure != std::errc{} || ptr != t.data() + t.size())
    throw error(status::invalid_argument, "unknown type string '" + std::string(type) + "'");
  return kind == 'U' ? checked_multiply(count, 4, type) : count;
}

std::size_t dtype_literal_size(const literal& dtype);

/// One field of a structured dtype: (name, dtype) or (name, dtype, shape).
std::size_t field_size(const literal& field) {
  if (field.what != literal::kind::sequence || field.items.size() < 2 || field.items.size() > 3)
    throw error(
        status::invalid_argument,
        "a structured dtype field must be (name, dtype[, shape]), got " + std::string(field.text));
  std::size_t bytes = dtype_literal_size(field.items[1]);
  if (field.items.size() == 3) {
    const literal& shape = field.items[2];
    if (shape.what == literal::kind::integer) {
      if (shape.integer_value < 0)
        throw error(status::invalid_argument,
                    "negative sub-array shape in " + std::string(field.text));
      bytes = checked_multiply(bytes, static_cast<std::size_t>(shape.integer_value), field.text);
    } else if (shape.what == literal::kind::sequence) {
      for (const literal& dim : shape.items) {
        if (dim.what != literal::kind::integer || dim.integer_value < 0)
          throw error(status::invalid_argument,
                      "bad sub-array shape in " + std::string(field.text));
        bytes = checked_multiply(bytes, static_cast<std::size_t>(dim.integer_value), field.text);
      }
    } else {
      throw error(status::invalid_argument, "bad sub-array shape in " + std::string(field.text));
    }
  }
  return bytes;
}

std::size_t dtype_literal_size(const literal& dtype) {
  if (dtype.what == literal::kind::string) return type_string_size(dtype.string_value);
  if (dtype.what == literal::kind::sequence) {
    std::size_t bytes = 0;
    for (const literal& field : dtype.items) {
      bytes += field_size(field);
      if (bytes < field_size(field))
        throw error(status::invalid_argument,
                    "the size of dtype " + std::string(dtype.text) + " overflows");
    }
    return bytes;
  }
  throw error(status::invalid_argument,
              "a dtype is a type string or a list of fields, got " + std::string(dtype.text));
}

std::uint32_t read_le(std::string_view bytes, std::size_t offset, std::size_t count) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < count; ++i)
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

std::size_t length_field_bytes(int major) {
  return major == 1 ? 2 : 4;
}

}  // namespace

bool has_npy_magic(std::string_view prefix) {
  return prefix.substr(0, npy_magic.size()) == npy_magic;
}

bool has_busy_magic(std::string_view prefix) {
  return prefix.substr(0, npy_busy_magic.size()) == npy_busy_magic;
}

std::size_t npy_header_length(std::string_view prefix, const std::string& name) {
  if (prefix.size() < 10 || !has_npy_magic(prefix)) bad(name, "no \\x93NUMPY magic string");
  const int major = static_cast<unsigned char>(prefix[6]);
  if (major < 1 || major > 3) bad(name, "format version " + std::to_string(major) + " (1-3 known)");
  const std::size_t field = length_field_bytes(major);
  if (prefix.size() < 8 + field) bad(name, "the file ends inside its header");
  return 8 + field + read_le(prefix, 8, field);
}

npy_header parse_npy_header(std::string_view bytes, const std::string& name) {
  npy_header h;
  h.header_bytes = npy_header_length(bytes, name);
  if (bytes.size() < h.header_bytes) bad(name, "the file ends inside its header");
  h.major = static_cast<unsigned char>(bytes[6]);
  h.minor = static_cast<unsigned char>(bytes[7]);
  const std::size_t dict_start = 8 + length_field_bytes(h.major);
  const std::string_view dict_text = bytes.substr(dict_start, h.header_bytes - dict_start);
  literal dict;
  try {
    dict = parse_literal(dict_text);
  } catch (const error& e) {
    bad(name, std::string("its header is not a Python literal: ") + e.what());
  }
  if (dict.what != literal::kind::dict) bad(name, "its header is not a dict");
  bool have_descr = false, have_order = false, have_shape = false;
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const literal& key = dict.items[i];
    const literal& value = dict.items[i + 1];
    if (key.what != literal::kind::string) bad(name, "a header key is not a string");
    if (key.string_value == "descr") {
      h.descr = std::string(value.text);
      try {
        h.elem_size = dtype_literal_size(value);
      } catch (const error& e) {
        bad(name, std::string("dtype ") + h.descr + ": " + e.what());
      }
      have_descr = true;
    } else if (key.string_value == "fortran_order") {
      if (value.what != literal::kind::boolean) bad(name, "fortran_order is not True or False");
      h.fortran_order = value.boolean_value;
      have_order = true;
    } else if (key.string_value == "shape") {
      if (value.what != literal::kind::sequence) bad(name, "shape is not a tuple");
      for (const literal& dim : value.items) {
        if (dim.what != literal::kind::integer || dim.integer_value < 0)
          bad(name, "shape " + std::string(value.text) + " has a dimension that is not a size");
        h.shape.push_back(dim.integer_value);
      }
      have_shape = true;
    } else {
      bad(name, "unknown header key '" + key.string_value + "'");
    }
  }
  if (!have_descr || !have_order || !have_shape)
    bad(name, "its header lacks one of 'descr', 'fortran_order', 'shape'");
  return h;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

std::string format_npy_header(const std::string& descr, bool fortran_order,
                              const std::vector<std::int64_t>& shape, int major, int minor,
                              std::size_t total_bytes) {
  const std::string dict = "{'descr': " + descr +
                           ", 'fortran_order': " + (fortran_order ? "True" : "False") +
                           ", 'shape': " + shape_text(shape) + ", }";
  const std::size_t field = length_field_bytes(major);
  const std::size_t fixed = 8 + field;
  if (fixed + dict.size() + 1 > total_bytes ||
      (major == 1 && total_bytes - fixed > std::numeric_limits<std::uint16_t>::max()))
    throw error(status::unsupported, "the new .npy header (" +
                                         std::to_string(fixed + dict.size() + 1) +
                                         " bytes) does not fit in the file's " +
                                         std::to_string(total_bytes) + "-byte header");
  std::string header(npy_magic);
  header += static_cast<char>(major);
  header += static_cast<char>(minor);
  const std::size_t length = total_bytes - fixed;
  for (std::size_t i = 0; i < field; ++i) header += static_cast<char>((length >> (8 * i)) & 0xff);
  header += dict;
  header.append(total_bytes - header.size() - 1, ' ');
  header += '\n';
  return header;
}

std::string make_npy_header(const std::string& descr, bool fortran_order,
                            const std::vector<std::int64_t>& shape) {
  // Room for numpy's own growth padding; version 2.0 when the dict passes 65535 bytes.
  const std::size_t dict_bytes = descr.size() + 64 + 24 * shape.size() + 1;
  const int major = dict_bytes + 10 > std::numeric_limits<std::uint16_t>::max() ? 2 : 1;
  const std::size_t fixed = 8 + length_field_bytes(major);
  const std::size_t total = (fixed + dict_bytes + npy_align - 1) / npy_align * npy_align;
  return format_npy_header(descr, fortran_order, shape, major, 0, total);
}

std::size_t dtype_size(std::string_view descr_literal) {
  return dtype_literal_size(parse_literal(descr_literal));
}

std::size_t dtype_name_size(std::string_view name) {
  struct alias {
    std::string_view name;
    std::size_t bytes;
  };
  static constexpr alias aliases[] = {
      {"bool", 1},        {"int8", 1},        {"uint8", 1},     {"int16", 2},
      {"uint16", 2},      {"float16", 2},     {"half", 2},      {"bfloat16", 2},
      {"int32", 4},       {"uint32", 4},      {"float32", 4},   {"float", 4},
      {"int64", 8},       {"uint64", 8},      {"float64", 8},   {"double", 8},
      {"complex64", 8},   {"complex128", 16}, {"float128", 16}, {"longdouble", 16},
      {"complex256", 32},
  };
  for (const alias& a : aliases)
    if (a.name == name) return a.bytes;
  try {
    const std::size_t bytes = type_string_size(name);
    if (bytes > 0) return bytes;
  } catch (const error&) {
  }
  throw error(status::invalid_argument,
              "--dtype: unknown type '" + std::string(name) +
                  "' (a numpy type string such as f4, <f8, u1, i2, c16, V12, or a name such as "
                  "float32, int16, complex128)");
}

}  // namespace xpose::detail::io
