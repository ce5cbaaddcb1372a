// A small JSON reader for the native tests' fixtures (objects, arrays, numbers, strings, true/false/null),
// enough for tests/fixtures/lm/*.json; not for untrusted input.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ap::testing {

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  double number = 0;
  bool boolean = false;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json& operator[](const std::string& k) const {
    const auto it = object.find(k);
    if (it == object.end()) throw std::runtime_error("json: no key " + k);
    return it->second;
  }
  const Json& operator[](std::size_t i) const { return array.at(i); }
  bool has(const std::string& k) const { return object.count(k) > 0; }
  std::size_t size() const { return kind == Kind::Array ? array.size() : object.size(); }
  std::vector<double> numbers() const {
    std::vector<double> v;
    for (const Json& x : array) v.push_back(x.number);
    return v;
  }
  std::vector<int> ints() const {
    std::vector<int> v;
    for (const Json& x : array) v.push_back(static_cast<int>(x.number));
    return v;
  }

  static Json parse(const std::string& s) {
    std::size_t i = 0;
    Json j = value(s, i);
    return j;
  }
  static Json load(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("json: cannot open " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return parse(ss.str());
  }

 private:
  static void ws(const std::string& s, std::size_t& i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  static std::string str(const std::string& s, std::size_t& i) {
    std::string out;
    ++i;  // "
    while (s[i] != '"') {
      if (s[i] == '\\') {
        ++i;
        const char e = s[i++];
        if (e == 'n')
          out += '\n';
        else if (e == 't')
          out += '\t';
        else if (e == 'u') {
          const unsigned cp = static_cast<unsigned>(std::stoul(s.substr(i, 4), nullptr, 16));
          i += 4;
          if (cp < 0x80)
            out += static_cast<char>(cp);
          else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          }
        } else
          out += e;
      } else {
        out += s[i++];
      }
    }
    ++i;
    return out;
  }
  static Json value(const std::string& s, std::size_t& i) {
    ws(s, i);
    Json j;
    const char c = s[i];
    if (c == '{') {
      j.kind = Kind::Object;
      ++i;
      ws(s, i);
      if (s[i] == '}') return ++i, j;
      for (;;) {
        ws(s, i);
        std::string k = str(s, i);
        ws(s, i);
        ++i;  // :
        j.object.emplace(std::move(k), value(s, i));
        ws(s, i);
        if (s[i++] == '}') return j;
      }
    }
    if (c == '[') {
      j.kind = Kind::Array;
      ++i;
      ws(s, i);
      if (s[i] == ']') return ++i, j;
      for (;;) {
        j.array.push_back(value(s, i));
        ws(s, i);
        if (s[i++] == ']') return j;
      }
    }
    if (c == '"') {
      j.kind = Kind::String;
      j.string = str(s, i);
      return j;
    }
    if (s.compare(i, 4, "true") == 0) return i += 4, j.kind = Kind::Bool, j.boolean = true, j;
    if (s.compare(i, 5, "false") == 0) return i += 5, j.kind = Kind::Bool, j;
    if (s.compare(i, 4, "null") == 0) return i += 4, j;
    if (s.compare(i, 3, "NaN") == 0) return i += 3, j.kind = Kind::Number, j.number = NAN, j;
    char* end = nullptr;
    j.kind = Kind::Number;
    j.number = std::strtod(s.c_str() + i, &end);
    i = static_cast<std::size_t>(end - s.c_str());
    return j;
  }
};

}  // namespace ap::testing
