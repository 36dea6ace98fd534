#include "formats/python_pickle.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <variant>

#include "util/error.h"

namespace trainer {
namespace {

// Objects refer to each other by plain pointers into the Unpickler's arena,
// which owns them all: a hostile pickle of a million nested lists, or a list
// that contains itself, is freed flat, with no recursion and no leak.
struct Object;
using Ref = Object*;

// No numpy array of integer lists nests deeper than a few levels.
constexpr int kMaxDepth = 64;

// What a pickle can build here. `call` is a callable applied to `args`
// (REDUCE) with its later BUILD `state`.
struct Object {
  enum class Kind { kNone, kBool, kInt, kFloat, kText, kBytes, kList, kTuple, kDict, kGlobal, kCall, kMark };
  Kind kind = Kind::kNone;
  int64_t integer = 0;
  double number = 0;
  std::string text;         // text, bytes, or "module.name" of a global
  std::vector<Ref> items;   // list, tuple, dict (key, value, key, value...)
  Ref call = nullptr, args = nullptr, state = nullptr;  // kCall
  int depth = 1;            // levels of containers, this one included
};

class Unpickler {
 public:
  Unpickler(const std::string& data, const std::string& name) : data_(data), name_(name) {}

  Ref run() {
    while (true) {
      const unsigned char op = byte();
      switch (op) {
        case 0x80: byte(); break;                      // PROTO
        case 0x95: bytes(8); break;                    // FRAME
        case '.': return pop();                        // STOP
        case '(': push(make(Object::Kind::kMark)); break;
        case 'N': push(make(Object::Kind::kNone)); break;
        case 0x88: case 0x89: {                        // NEWTRUE, NEWFALSE
          auto b = make(Object::Kind::kBool);
          b->integer = op == 0x88;
          push(b);
          break;
        }
        case 'J': push_int(static_cast<int32_t>(little(4))); break;   // BININT
        case 'K': push_int(static_cast<int64_t>(little(1))); break;   // BININT1
        case 'M': push_int(static_cast<int64_t>(little(2))); break;   // BININT2
        case 0x8a: push_int(long1(byte())); break;                    // LONG1
        case 'G': {                                                   // BINFLOAT (big-endian)
          uint64_t bits = 0;
          for (char c : bytes(8)) bits = (bits << 8) | static_cast<unsigned char>(c);
          auto f = make(Object::Kind::kFloat);
          std::memcpy(&f->number, &bits, sizeof bits);
          push(f);
          break;
        }
        case 'X': push_text(bytes(little(4)), Object::Kind::kText); break;       // BINUNICODE
        case 0x8c: push_text(bytes(byte()), Object::Kind::kText); break;         // SHORT_BINUNICODE
        case 0x8d: push_text(bytes(little(8)), Object::Kind::kText); break;      // BINUNICODE8
        case 'T': push_text(bytes(little(4)), Object::Kind::kBytes); break;      // BINSTRING
        case 'U': push_text(bytes(byte()), Object::Kind::kBytes); break;         // SHORT_BINSTRING
        case 'B': push_text(bytes(little(4)), Object::Kind::kBytes); break;      // BINBYTES
        case 'C': push_text(bytes(byte()), Object::Kind::kBytes); break;         // SHORT_BINBYTES
        case ')': push(make(Object::Kind::kTuple)); break;                       // EMPTY_TUPLE
        case ']': push(make(Object::Kind::kList)); break;                        // EMPTY_LIST
        case '}': push(make(Object::Kind::kDict)); break;                        // EMPTY_DICT
        case 0x85: case 0x86: case 0x87: {                                       // TUPLE1..3
          auto tuple = make(Object::Kind::kTuple);
          std::vector<Ref> values(op - 0x84);
          for (size_t i = values.size(); i-- > 0;) values[i] = pop();
          add_items(tuple, values);
          push(tuple);
          break;
        }
        case 't': case 'l': {                                                     // TUPLE, LIST
          auto sequence = make(op == 't' ? Object::Kind::kTuple : Object::Kind::kList);
          add_items(sequence, pop_to_mark());
          push(sequence);
          break;
        }
        case 'a': {                                                               // APPEND
          auto value = pop();
          add_items(top(Object::Kind::kList), {value});
          break;
        }
        case 'e': {                                                               // APPENDS
          auto values = pop_to_mark();
          add_items(top(Object::Kind::kList), values);
          break;
        }
        case 's': {                                                               // SETITEM
          auto value = pop(), key = pop();
          add_items(top(Object::Kind::kDict), {key, value});
          break;
        }
        case 'u': {                                                               // SETITEMS
          auto values = pop_to_mark();
          add_items(top(Object::Kind::kDict), values);
          break;
        }
        case 'q': memo_[little(1)] = peek(); break;                               // BINPUT
        case 'r': memo_[little(4)] = peek(); break;                               // LONG_BINPUT
        case 0x94: memo_[memo_.size()] = peek(); break;                           // MEMOIZE
        case 'h': push(memo(little(1))); break;                                   // BINGET
        case 'j': push(memo(little(4))); break;                                   // LONG_BINGET
        case 'c': {                                                               // GLOBAL
          const std::string module = line(), attribute = line();
          push_global(module + "." + attribute);
          break;
        }
        case 0x93: {                                                              // STACK_GLOBAL
          auto attribute = pop(), module = pop();
          push_global(module->text + "." + attribute->text);
          break;
        }
        case 'R': case 0x81: {                                                    // REDUCE, NEWOBJ
          auto args = pop(), callable = pop();
          if (callable->kind != Object::Kind::kGlobal) fail("a call of something that is not a known class");
          auto call = make(Object::Kind::kCall);
          call->call = callable;
          call->args = args;
          nest(call, args);
          push(call);
          break;
        }
        case 'b': {                                                               // BUILD
          auto state = pop();
          Ref call = top(Object::Kind::kCall);
          call->state = state;
          nest(call, state);
          break;
        }
        default:
          fail("unsupported pickle opcode 0x" + hex(op));
      }
    }
  }

 private:
  Ref make(Object::Kind kind) {
    arena_.push_back(std::make_unique<Object>());
    arena_.back()->kind = kind;
    return arena_.back().get();
  }
  // `child` goes into `parent`: the nesting is bounded.
  void nest(Ref parent, Ref child) {
    parent->depth = std::max(parent->depth, child->depth + 1);
    if (parent->depth > kMaxDepth) fail("values nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  void add_items(Ref container, const std::vector<Ref>& values) {
    for (Ref value : values) nest(container, value);
    container->items.insert(container->items.end(), values.begin(), values.end());
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(name_ + ": cannot read its pickled data: " + what);
  }
  static std::string hex(unsigned value) {
    static const char* digits = "0123456789abcdef";
    return {digits[(value >> 4) & 15], digits[value & 15]};
  }
  unsigned char byte() {
    if (at_ >= data_.size()) fail("truncated");
    return static_cast<unsigned char>(data_[at_++]);
  }
  std::string bytes(uint64_t count) {
    if (count > data_.size() - at_) fail("truncated");
    std::string out = data_.substr(at_, count);
    at_ += count;
    return out;
  }
  uint64_t little(int width) {
    uint64_t value = 0;
    const std::string raw = bytes(static_cast<uint64_t>(width));
    for (int i = width - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(raw[i]);
    return value;
  }
  int64_t long1(size_t width) {
    if (width > 8) fail("an integer wider than 64 bits");
    if (width == 0) return 0;
    uint64_t value = little(static_cast<int>(width));
    if (width < 8 && (value >> (8 * width - 1)) & 1) value |= ~uint64_t{0} << (8 * width);  // sign-extend
    return static_cast<int64_t>(value);
  }
  std::string line() {
    const size_t end = data_.find('\n', at_);
    if (end == std::string::npos) fail("truncated");
    std::string out = data_.substr(at_, end - at_);
    at_ = end + 1;
    return out;
  }
  void push(Ref object) { stack_.push_back(std::move(object)); }
  void push_int(int64_t value) {
    auto i = make(Object::Kind::kInt);
    i->integer = value;
    push(i);
  }
  void push_text(std::string text, Object::Kind kind) {
    auto t = make(kind);
    t->text = std::move(text);
    push(t);
  }
  void push_global(const std::string& qualified) {
    // numpy 1.x and 2.x spell the array reconstructor's module differently.
    static const char* allowed[] = {"numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct",
                                    "numpy.ndarray", "numpy.dtype"};
    for (const char* name : allowed)
      if (qualified == name) return push_text(qualified, Object::Kind::kGlobal);
    fail("it refers to '" + qualified + "', which is not a numpy array");
  }
  Ref pop() {
    if (stack_.empty()) fail("stack underflow (corrupt data)");
    Ref object = stack_.back();
    stack_.pop_back();
    return object;
  }
  Ref peek() const {
    if (stack_.empty()) throw DataError(name_ + ": cannot read its pickled data: stack underflow");
    return stack_.back();
  }
  Ref top(Object::Kind kind) {
    Ref object = peek();
    if (object->kind != kind) fail("an opcode applied to the wrong kind of value");
    return object;
  }
  std::vector<Ref> pop_to_mark() {
    std::vector<Ref> items;
    while (true) {
      Ref object = pop();
      if (object->kind == Object::Kind::kMark) break;
      items.push_back(object);
    }
    return {items.rbegin(), items.rend()};
  }
  Ref memo(uint64_t key) {
    auto found = memo_.find(key);
    if (found == memo_.end()) fail("a reference to an unknown memo entry");
    return found->second;
  }

  const std::string& data_;
  const std::string& name_;
  size_t at_ = 0;
  std::vector<std::unique_ptr<Object>> arena_;
  std::vector<Ref> stack_;
  std::map<uint64_t, Ref> memo_;
};

}  // namespace

std::vector<std::vector<int64_t>> unpickle_int_list_array(const std::string& pickle, const std::string& name) {
  Unpickler unpickler(pickle, name);  // owns every object until the end
  const Ref array = unpickler.run();
  const auto fail = [&](const std::string& what) -> DataError {
    return DataError(name + ": expected a pickled numpy array of integer lists, but " + what);
  };
  if (array->kind != Object::Kind::kCall || array->call->text.find("_reconstruct") == std::string::npos || !array->state)
    throw fail("found another object");
  // ndarray.__setstate__((version, shape, dtype, is_fortran, data))
  const auto& state = array->state->items;
  if (array->state->kind != Object::Kind::kTuple || state.size() != 5) throw fail("the array state is malformed");
  const Ref& data = state[4];
  if (data->kind != Object::Kind::kList) throw fail("its elements are not Python objects");
  std::vector<std::vector<int64_t>> out;
  out.reserve(data->items.size());
  for (const Ref& element : data->items) {
    if (element->kind != Object::Kind::kList && element->kind != Object::Kind::kTuple)
      throw fail("element " + std::to_string(out.size()) + " is not a list");
    std::vector<int64_t> values;
    values.reserve(element->items.size());
    for (const Ref& value : element->items) {
      if (value->kind != Object::Kind::kInt) throw fail("element " + std::to_string(out.size()) + " holds a non-integer");
      values.push_back(value->integer);
    }
    out.push_back(std::move(values));
  }
  return out;
}

}  // namespace trainer
