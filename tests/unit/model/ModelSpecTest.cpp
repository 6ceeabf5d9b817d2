// The ModelSpec parser (include/skelcast/model/ModelSpec.h): the model's kind,
// the terms switched off and the label, from --model and --without; errors name
// the option and the bad value.
#include "skelcast/model/ModelSpec.h"
#include "skelcast/model/ModernTerms.h"
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

using namespace skelcast;
using model::LabelOrder;
using model::ModelKind;
using model::TermId;
using model::termBit;

namespace {

/// The message of the InputError `f` throws ("" when it throws none).
template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(ModelSpec, TheDefaultIsSkelcastWithEveryTerm) {
  model::ModelSpec s;
  EXPECT_EQ(s.kind, ModelKind::Skelcast);
  EXPECT_EQ(s.off, 0u);
  EXPECT_EQ(s.label, "skelcast");
  EXPECT_EQ(s.enabledTerms(), model::kAllTerms);
  model::ModelSpec parsed = model::parseModelSpec("skelcast");
  EXPECT_EQ(parsed.kind, s.kind);
  EXPECT_EQ(parsed.off, s.off);
  EXPECT_EQ(parsed.label, s.label);
}

TEST(ModelSpec, EachModelNameGivesItsKind) {
  EXPECT_EQ(model::parseModelSpec("hong-kim").kind, ModelKind::HongKim);
  EXPECT_EQ(model::parseModelSpec("roofline").kind, ModelKind::Roofline);
  EXPECT_EQ(model::parseModelSpec("skelcast").kind, ModelKind::Skelcast);
  for (ModelKind k : {ModelKind::Skelcast, ModelKind::HongKim, ModelKind::Roofline}) {
    EXPECT_EQ(model::parseModelSpec(model::modelName(k)).kind, k);
    EXPECT_EQ(model::parseModelSpec(model::modelName(k)).label, model::modelName(k));
  }
  EXPECT_EQ(model::modelNames(), (std::vector<std::string>{"skelcast", "hong-kim", "roofline"}));
}

TEST(ModelSpec, WithoutClearsEachNamedTermsBit) {
  model::ModelSpec s = model::parseModelSpec("skelcast", {"lsu", "caches"});
  EXPECT_EQ(s.off, termBit(TermId::Lsu) | termBit(TermId::Caches));
  EXPECT_EQ(s.enabledTerms(), model::kAllTerms & ~(termBit(TermId::Lsu) | termBit(TermId::Caches)));
  EXPECT_FALSE(s.enabledTerms() & termBit(TermId::Caches));
  EXPECT_TRUE(s.enabledTerms() & termBit(TermId::Launch));
  // Every term by its name.
  const auto &names = model::modernTermNames();
  for (size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(model::parseModelSpec("skelcast", {names[i]}).off, termBit(static_cast<TermId>(i))) << names[i];
}

TEST(ModelSpec, TheLabelListsTheTermsAsGivenOrSorted) {
  EXPECT_EQ(model::parseModelSpec("skelcast", {"lsu", "caches"}).label, "skelcast without lsu,caches");
  EXPECT_EQ(model::parseModelSpec("skelcast", {"lsu", "caches"}, LabelOrder::Sorted).label,
            "skelcast without caches,lsu");
  // Repeats: kept as given (project's label has always printed them), dropped when sorted.
  EXPECT_EQ(model::parseModelSpec("skelcast", {"lsu", "lsu"}).label, "skelcast without lsu,lsu");
  EXPECT_EQ(model::parseModelSpec("skelcast", {"lsu", "lsu"}, LabelOrder::Sorted).label,
            "skelcast without lsu");
  // Other models take --without too (it changes nothing but the label).
  EXPECT_EQ(model::parseModelSpec("roofline", {"launch"}).label, "roofline without launch");
  EXPECT_EQ(model::parseModelSpec("roofline", {"launch"}).kind, ModelKind::Roofline);
}

TEST(ModelSpec, AnUnknownModelNamesTheOptionAndTheValue) {
  EXPECT_EQ(errorOf([] { model::parseModelSpec("ecm"); }),
            "--model: error: unknown model 'ecm' (known: skelcast, hong-kim, roofline)");
  EXPECT_EQ(errorOf([] { model::parseModelSpec("Skelcast"); }),
            "--model: error: unknown model 'Skelcast' (known: skelcast, hong-kim, roofline)");
  EXPECT_EQ(errorOf([] { model::parseModelSpec(""); }),
            "--model: error: unknown model '' (known: skelcast, hong-kim, roofline)");
}

TEST(ModelSpec, AnUnknownTermNamesTheOptionAndTheValue) {
  EXPECT_EQ(errorOf([] { model::parseModelSpec("skelcast", {"caches", "cache"}); }),
            "--without: error: unknown term 'cache' (known: schedulers, fp64, jam, registers, "
            "spills, mlp, caches, residency, walk, rmw, waves, longest, tail, bandwidth, lsu, lines, banks, occupancy, l2, "
            "blocks, chain, reduction, overlap, launch)");
}
