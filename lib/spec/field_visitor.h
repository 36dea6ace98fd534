#pragma once
// The base of visitors of `visit_fields` that treat every field alike (the
// writer, the reference, --explain): a field's check is not theirs to run,
// and a required field is listed like any other. The derived class defines
// `field(key, value, doc)`; the reader (field_reader.h) is the visitor that
// does use checks and required fields.
namespace trainer {

template <class Derived>
class PlainFieldVisitor {
 public:
  template <class T, class Check>
  void operator()(const char* key, const T& value, const char* doc, const Check&) {
    self().field(key, value, doc);
  }
  template <class T>
  void operator()(const char* key, const T& value, const char* doc) {
    self().field(key, value, doc);
  }
  template <class T>
  void required(const char* key, const T& value, const char* doc) {
    self().field(key, value, doc);
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace trainer
