/// \file
/// The performance models behind one small interface, as Kerncraft has them
/// (`kerncraft/models/base.py`: one model per module, a registry choosing one):
/// a Model is made for one kernel on one GPU (makeModel, from a ModelSpec) and
/// times its layouts one after the other, each from the layout's
/// characterization (GROPHECY eq. 1-17). Three implementations:
///
/// - HongKimModel  (`hong-kim`, docs/model.md section 5): Hong & Kim's MWP/CWP
///   model as GROPHECY uses it, nothing added (src/model/HongKim.cpp);
/// - SkelcastModel (`skelcast`, section 7): the same core with the terms of
///   skelcastTerms() switched on by the spec: their adjust steps change the
///   core's inputs, their settle steps (the floors, the launch) its time
///   (src/model/ModernTerms.cpp);
/// - RooflineModel (`roofline`, section 8): max(compulsory bytes / bandwidth,
///   warp instructions / issue rate) + launch; the MWP/CWP quantities are still
///   reported beside it (src/model/Roofline.cpp).
///
/// Every model also reports the roofline of the layout, which `explain` and
/// `validate` print beside any model. A Model keeps storage from one layout to
/// the next (the enumerator calls it millions of times) and refers to the
/// kernel and the spec it was made for, which must outlive it; it writes
/// nothing anywhere but into the Evaluation it is given.
#pragma once

#include "skelcast/hw/HwSpec.h"
#include "skelcast/layout/Characterize.h"
#include "skelcast/model/HongKim.h"
#include "skelcast/model/ModelSpec.h"
#include "skelcast/model/ModernTerms.h"
#include "skelcast/model/Roofline.h"

#include <memory>

namespace skelcast::model {

/// What a model says about one layout.
struct Evaluation {
  HongKimResult result;  ///< timeMs: the model's time, every enabled term included
  TermEffects effects;   ///< the terms' quantities (all 0 but for `skelcast`)
  RooflineResult roofline;
};

class Model {
public:
  virtual ~Model() = default;
  virtual ModelKind kind() const = 0;
  /// Times layout `l` of the model's kernel, characterized as `c`, into `out`.
  virtual void evaluate(const layout::Layout &l, const layout::Characterization &c, Evaluation &out) = 0;
};

/// `hong-kim`: the paper's model.
class HongKimModel final : public Model {
public:
  explicit HongKimModel(const hw::HwSpec &hw) : hw_(hw) {}
  ModelKind kind() const override { return ModelKind::HongKim; }
  void evaluate(const layout::Layout &l, const layout::Characterization &c, Evaluation &out) override;

private:
  const hw::HwSpec &hw_;
};

/// `skelcast`: the Hong–Kim core with the terms of `on` (ModernTerms.h).
class SkelcastModel final : public Model {
public:
  SkelcastModel(const layout::KernelInfo &ki, const hw::HwSpec &hw, TermMask on)
      : ki_(ki), hw_(hw), on_(on), adjusted_{{}, hw, {}} {}
  ModelKind kind() const override { return ModelKind::Skelcast; }
  void evaluate(const layout::Layout &l, const layout::Characterization &c, Evaluation &out) override;

private:
  const layout::KernelInfo &ki_;
  const hw::HwSpec &hw_;
  TermMask on_;
  AdjustedInputs adjusted_; ///< the spec copied once, not per layout
  TermScratch scratch_;
};

/// `roofline`: the baseline.
class RooflineModel final : public Model {
public:
  explicit RooflineModel(const hw::HwSpec &hw) : hw_(hw) {}
  ModelKind kind() const override { return ModelKind::Roofline; }
  void evaluate(const layout::Layout &l, const layout::Characterization &c, Evaluation &out) override;

private:
  const hw::HwSpec &hw_;
};

/// The model `spec` names, for kernel `ki` on `hw` (both must outlive it).
std::unique_ptr<Model> makeModel(const ModelSpec &spec, const layout::KernelInfo &ki, const hw::HwSpec &hw);

} // namespace skelcast::model
