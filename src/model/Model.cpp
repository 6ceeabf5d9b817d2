// The registry of the models (Model.h) and the ModelSpec parser (ModelSpec.h).
#include "skelcast/model/Model.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace skelcast::model {

const std::vector<std::string> &modelNames() {
  static const std::vector<std::string> names{"skelcast", "hong-kim", "roofline"};
  return names;
}

const std::string &modelName(ModelKind kind) { return modelNames()[static_cast<size_t>(kind)]; }

TermMask ModelSpec::enabledTerms() const { return kAllTerms & ~off; }

ModelSpec parseModelSpec(const std::string &model, const std::vector<std::string> &without,
                         LabelOrder order) {
  ModelSpec spec;
  const auto &models = modelNames();
  auto m = std::find(models.begin(), models.end(), model);
  if (m == models.end())
    throw InputError({"--model", 0, 0}, fmt::format("unknown model '{}' (known: {})", model,
                                                    fmt::join(models, ", ")));
  spec.kind = static_cast<ModelKind>(m - models.begin());
  const auto &terms = modernTermNames();
  for (const auto &name : without) {
    auto t = std::find(terms.begin(), terms.end(), name);
    if (t == terms.end())
      throw InputError({"--without", 0, 0}, fmt::format("unknown term '{}' (known: {})", name,
                                                        fmt::join(terms, ", ")));
    spec.off |= termBit(static_cast<TermId>(t - terms.begin()));
  }
  spec.label = model;
  auto list = [&](const auto &names) {
    size_t i = 0;
    for (const auto &name : names)
      spec.label += (i++ ? "," : " without ") + name;
  };
  if (order == LabelOrder::Sorted)
    list(std::set<std::string>(without.begin(), without.end()));
  else
    list(without);
  return spec;
}

std::unique_ptr<Model> makeModel(const ModelSpec &spec, const layout::KernelInfo &ki, const hw::HwSpec &hw) {
  switch (spec.kind) {
  case ModelKind::HongKim:
    return std::make_unique<HongKimModel>(hw);
  case ModelKind::Roofline:
    return std::make_unique<RooflineModel>(hw);
  case ModelKind::Skelcast:
    break;
  }
  return std::make_unique<SkelcastModel>(ki, hw, spec.enabledTerms());
}

} // namespace skelcast::model
