// Shared by the libFuzzer targets of tests/fuzz: the contract every target
// checks is that any input either succeeds or throws skelcast::InputError.
// Anything else (another exception, a crash, a sanitizer report, a hang) is a
// bug; this header turns an unexpected exception into an abort that libFuzzer
// reports with the input that caused it.
#pragma once

#include "skelcast/support/Diagnostic.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace skelcast::fuzz {

[[noreturn]] inline void die(const std::string &why) {
  std::fprintf(stderr, "skelcast fuzz: %s\n", why.c_str());
  std::fflush(stderr);
  std::abort();
}

/// Runs `body`; an InputError is the expected answer to bad input, any other
/// exception is a bug.
template <class F> void onlyInputErrors(F &&body) {
  try {
    body();
  } catch (const InputError &) {
    // bad input, answered clearly
  } catch (const std::exception &e) {
    die(std::string("unexpected exception ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    die("unexpected exception of unknown type");
  }
}

/// `body` must not throw at all (e.g. re-parsing what skelcast printed).
template <class F> void mustSucceed(const char *what, F &&body) {
  try {
    body();
  } catch (const std::exception &e) {
    die(std::string(what) + " threw: " + e.what());
  }
}

} // namespace skelcast::fuzz
