/// \file
/// Which model a run uses, parsed once from the command line: the model's kind,
/// the terms of the `skelcast` model switched off, and the label reports print
/// ("skelcast", "skelcast without caches,lsu"). Every stage after the parser
/// reads the kind and the term bits; no one compares model names as strings
/// (Kerncraft's `-p ECM` / `-p Roofline` become one value; docs/model.md,
/// sections 5, 7 and 8).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skelcast::model {

/// The models: `skelcast` (Hong–Kim with the modern terms, the default),
/// `hong-kim` (the paper-faithful model, section 5) and `roofline` (the
/// baseline, section 8).
enum class ModelKind { Skelcast, HongKim, Roofline };

/// The known model names, in the order of ModelKind: skelcast, hong-kim, roofline.
const std::vector<std::string> &modelNames();
/// The name `--model` takes for `kind`.
const std::string &modelName(ModelKind kind);

/// Terms of the `skelcast` model as bits: bit i is skelcastTerms()[i]
/// (ModernTerms.h).
using TermMask = uint32_t;

struct ModelSpec {
  ModelKind kind = ModelKind::Skelcast;
  TermMask off = 0;              ///< terms switched off (`--without`); only `skelcast` has terms
  std::string label = "skelcast"; ///< as reports print it
  /// The terms that are on: every term of the table but those switched off.
  TermMask enabledTerms() const;
};

/// How the label lists the terms switched off: as given on the command line
/// (`project`, `explain`, `validate`), or sorted and without repeats (`batch`,
/// `check`: baselines compare labels, which must not depend on the order).
enum class LabelOrder { AsGiven, Sorted };

/// `model` as `--model` takes it, `without` as the `--without` options (each a
/// term name). An unknown model or term is an InputError that names the option
/// and the value: "unknown model 'ecm' (known: skelcast, hong-kim, roofline)".
ModelSpec parseModelSpec(const std::string &model, const std::vector<std::string> &without = {},
                         LabelOrder order = LabelOrder::AsGiven);

} // namespace skelcast::model
