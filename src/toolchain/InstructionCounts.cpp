#include "skelcast/toolchain/InstructionCounts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace skelcast::toolchain {

const char *insnClassName(InsnClass c) {
  switch (c) {
  case InsnClass::Fp32:
    return "FP32";
  case InsnClass::Fp64:
    return "FP64";
  case InsnClass::Integer:
    return "integer/address";
  case InsnClass::Memory:
    return "load/store";
  case InsnClass::Control:
    return "control";
  }
  return "?";
}

int64_t ClassCounts::total() const {
  int64_t t = 0;
  for (int64_t v : n)
    t += v;
  return t;
}

namespace {

/// One instruction of a kernel in code order; `target` is the index of the
/// instruction a backward branch jumps to, -1 for anything else.
struct Insn {
  InsnClass cls = InsnClass::Integer;
  long target = -1;
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> splitDots(const std::string &op) {
  std::vector<std::string> parts;
  std::stringstream ss(op);
  std::string p;
  while (std::getline(ss, p, '.'))
    parts.push_back(p);
  return parts;
}

/// The loops (first, last instruction) from the backward branches, then the
/// counts: innermost bodies and the rest outside every loop.
CodeCounts split(const std::vector<Insn> &code, const std::vector<std::string> &headers) {
  std::map<long, long> loops; // header -> last back edge
  for (size_t i = 0; i < code.size(); ++i)
    if (code[i].target >= 0 && code[i].target <= static_cast<long>(i)) {
      long &end = loops[code[i].target];
      end = std::max(end, static_cast<long>(i));
    }
  CodeCounts out;
  out.loops = static_cast<int64_t>(loops.size());
  std::vector<bool> inLoop(code.size(), false);
  for (auto [b, e] : loops)
    for (long i = b; i <= e; ++i)
      inLoop[static_cast<size_t>(i)] = true;
  for (auto [b, e] : loops) {
    bool innermost = true;
    for (auto [b2, e2] : loops)
      if ((b2 != b || e2 != e) && b <= b2 && e2 <= e)
        innermost = false;
    if (!innermost)
      continue;
    LoopBody body;
    body.header = headers[static_cast<size_t>(b)];
    for (long i = b; i <= e; ++i)
      ++body.counts[code[static_cast<size_t>(i)].cls];
    out.innermost.push_back(body);
  }
  for (size_t i = 0; i < code.size(); ++i)
    if (!inLoop[i])
      ++out.outside[code[i].cls];
  return out;
}

InsnClass ptxClass(const std::string &opcode) {
  std::vector<std::string> p = splitDots(opcode);
  const std::string &base = p.empty() ? opcode : p[0];
  auto has = [&](const char *m) { return std::find(p.begin() + 1, p.end(), m) != p.end(); };
  static const std::set<std::string> control = {"bra", "brx", "ret", "exit", "call", "bar",
                                                "barrier", "trap", "membar", "fence"};
  if (control.count(base))
    return InsnClass::Control;
  if (base == "ld" || base == "st" || base == "ldu" || base == "atom" || base == "red" ||
      base == "cp" || base == "prefetch") {
    if (has("param") || has("const"))
      return InsnClass::Integer; // parameters come from the constant bank (LDC/ULDC)
    return InsnClass::Memory;
  }
  if (base == "mov" || base == "selp" || base == "cvta")
    return InsnClass::Integer; // moves and selects are not arithmetic of their type
  if (has("f64"))
    return InsnClass::Fp64;
  if (has("f32") || has("f16") || has("f16x2") || has("bf16"))
    return InsnClass::Fp32;
  return InsnClass::Integer;
}

InsnClass sassClass(const std::string &opcode) {
  std::vector<std::string> p = splitDots(opcode);
  const std::string &base = p.empty() ? opcode : p[0];
  static const std::set<std::string> memory = {"LDG",  "STG",   "LDS",   "STS", "LD",
                                               "ST",   "LDL",   "STL",   "ATOM", "ATOMG",
                                               "ATOMS", "RED",  "REDG",  "LDGSTS", "LDSM"};
  static const std::set<std::string> control = {"BRA",  "BRX",   "JMP",  "EXIT",  "RET",
                                                "CALL", "BAR",   "BSSY", "BSYNC", "WARPSYNC",
                                                "BREAK", "YIELD", "DEPBAR", "BMOV", "KILL"};
  static const std::set<std::string> fp64 = {"DADD", "DMUL", "DFMA", "DSETP", "DMNMX", "DSET"};
  static const std::set<std::string> fp32 = {"FADD", "FMUL", "FFMA", "FSETP", "FMNMX", "FSEL",
                                             "FSET", "MUFU", "FCHK", "FRND",  "F2F",   "I2F",
                                             "F2I",  "FSWZADD", "HADD2", "HMUL2"};
  if (memory.count(base))
    return InsnClass::Memory;
  if (control.count(base))
    return InsnClass::Control;
  if (fp64.count(base))
    return InsnClass::Fp64;
  bool f64 = opcode.find(".F64") != std::string::npos || opcode.find("64H") != std::string::npos;
  if ((base == "F2F" || base == "I2F" || base == "F2I" || base == "MUFU" || base == "FRND") && f64)
    return InsnClass::Fp64;
  if (fp32.count(base))
    return InsnClass::Fp32;
  return InsnClass::Integer; // IMAD, IADD3, LEA, LOP3, ISETP, MOV, S2R, LDC, HFMA2.MMA (a move), ...
}

} // namespace

CodeCounts countPtx(const std::string &ptx) {
  size_t entry = ptx.find(".entry");
  if (entry == std::string::npos)
    throw std::runtime_error("no .entry in the PTX");
  size_t open = ptx.find("\n{", entry);
  if (open == std::string::npos)
    throw std::runtime_error("no body after the PTX .entry");
  // The body without comments, to its closing brace at depth 0.
  std::string body;
  int depth = 0;
  for (size_t i = open + 1; i < ptx.size(); ++i) {
    char c = ptx[i];
    if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
      while (i < ptx.size() && ptx[i] != '\n')
        ++i;
      body += '\n';
      continue;
    }
    if (c == '{')
      ++depth;
    else if (c == '}') {
      if (--depth == 0)
        break;
    }
    body += (c == '{' || c == '}') ? ' ' : c;
  }
  std::vector<Insn> code;
  std::vector<std::string> headers;
  std::map<std::string, long> labelAt;
  std::vector<std::pair<size_t, std::string>> branches; // instruction, target label
  CodeCounts calls;
  std::stringstream ss(body);
  std::string stmt;
  static const std::regex label(R"(^\s*([$A-Za-z_.][$\w.]*)\s*:)");
  while (std::getline(ss, stmt, ';')) {
    stmt = trim(stmt);
    std::smatch m;
    std::string pendingLabel;
    while (std::regex_search(stmt, m, label)) {
      labelAt[m[1]] = static_cast<long>(code.size());
      pendingLabel = m[1];
      stmt = trim(m.suffix().str());
    }
    if (stmt.empty() || stmt[0] == '.')
      continue; // a declaration (.reg, .param, .local, .shared)
    if (stmt[0] == '@') { // a guard predicate
      size_t sp = stmt.find_first_of(" \t");
      stmt = sp == std::string::npos ? "" : trim(stmt.substr(sp));
    }
    size_t sp = stmt.find_first_of(" \t\n");
    std::string opcode = stmt.substr(0, sp);
    std::string operands = sp == std::string::npos ? "" : trim(stmt.substr(sp));
    Insn in;
    in.cls = ptxClass(opcode);
    if (opcode.rfind("bra", 0) == 0)
      branches.push_back({code.size(), operands});
    if (opcode.rfind("call", 0) == 0) {
      std::string rest = operands;
      if (!rest.empty() && rest[0] == '(')
        rest = trim(rest.substr(rest.find(')') + 1));
      if (!rest.empty() && rest[0] == ',')
        rest = trim(rest.substr(1));
      calls.calls.push_back(trim(rest.substr(0, rest.find(','))));
    }
    headers.push_back(pendingLabel.empty() ? fmt::format("#{}", code.size()) : pendingLabel);
    code.push_back(in);
  }
  for (auto &[i, target] : branches) {
    auto it = labelAt.find(target);
    if (it != labelAt.end())
      code[i].target = it->second;
  }
  CodeCounts out = split(code, headers);
  out.calls = calls.calls;
  return out;
}

namespace {

/// One SASS instruction as cuobjdump prints it, its guard predicate dropped.
struct SassLine {
  long addr;
  std::string opcode, operands;
};

/// The instructions of the first `Function :` of `cuobjdump -sass` output.
std::vector<SassLine> readSass(const std::string &sass) {
  size_t fn = sass.find("Function :");
  if (fn == std::string::npos)
    throw std::runtime_error("no 'Function :' in the SASS");
  size_t next = sass.find("Function :", fn + 1);
  std::stringstream ss(sass.substr(fn, next == std::string::npos ? std::string::npos : next - fn));
  static const std::regex line(R"(^\s*/\*([0-9a-fA-F]+)\*/\s+([^;]*);)");
  std::vector<SassLine> raw;
  std::string l;
  while (std::getline(ss, l)) {
    std::smatch m;
    if (!std::regex_search(l, m, line))
      continue;
    std::string text = trim(m[2]);
    if (!text.empty() && text[0] == '@') {
      size_t sp = text.find_first_of(" \t");
      text = sp == std::string::npos ? "" : trim(text.substr(sp));
    }
    size_t sp = text.find_first_of(" \t");
    raw.push_back({std::stol(m[1], nullptr, 16), text.substr(0, sp),
                   sp == std::string::npos ? "" : trim(text.substr(sp))});
  }
  return raw;
}

/// The general registers an operand list names: R5 is 5, a 64-bit pair R4.64
/// is 4 and 5 (uniform registers URn and RZ are not general registers).
std::set<int> sassRegisters(const std::string &text) {
  static const std::regex reg(R"(\bR(\d+)(\.64)?\b)");
  std::set<int> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), reg); it != std::sregex_iterator(); ++it) {
    int r = std::stoi((*it)[1]);
    out.insert(r);
    if ((*it)[2].matched)
      out.insert(r + 1);
  }
  return out;
}

} // namespace

SassLoadGroups countSassLoadGroups(const std::string &sass) {
  std::vector<SassLine> raw = readSass(sass);
  SassLoadGroups out;
  std::map<int, size_t> pending; // register -> the load (its number) that writes it
  std::vector<size_t> loadPos;   // instruction index of each load
  long lastWait = -1;
  for (size_t pos = 0; pos < raw.size(); ++pos) {
    const SassLine &in = raw[pos];
    std::string base = in.opcode.substr(0, in.opcode.find('.'));
    size_t comma = in.operands.find(',');
    // Stores and reductions write no register (ATOMG returns the old value);
    // an instruction with one operand reads it.
    bool store = base.rfind("ST", 0) == 0 || base == "RED";
    std::set<int> dst = store || comma == std::string::npos ? std::set<int>{}
                                                            : sassRegisters(in.operands.substr(0, comma));
    std::set<int> srcs = store || comma == std::string::npos ? sassRegisters(in.operands)
                                                             : sassRegisters(in.operands.substr(comma + 1));
    // The first reader of a pending load's register waits for it, and for every
    // load issued before it; a wait for a load issued after the previous wait
    // ends a group (docs/model.md, `mlp`).
    std::optional<size_t> waited;
    for (int r : srcs)
      if (auto it = pending.find(r); it != pending.end())
        waited = std::max(waited.value_or(0), it->second);
    if (waited) {
      if (static_cast<long>(loadPos[*waited]) > lastWait) {
        ++out.groups;
        lastWait = static_cast<long>(pos);
      }
      for (auto it = pending.begin(); it != pending.end();)
        it = it->second <= *waited ? pending.erase(it) : std::next(it);
    }
    if (base == "LDG") {
      int width = in.opcode.find(".128") != std::string::npos ? 4 : in.opcode.find(".64") != std::string::npos ? 2 : 1;
      loadPos.push_back(pos);
      ++out.loads;
      out.registers += width;
      if (!dst.empty())
        for (int k = 0; k < width; ++k)
          pending[*dst.begin() + k] = loadPos.size() - 1;
    } else {
      for (int r : dst)
        pending.erase(r);
    }
  }
  return out;
}

double SassLoadGroups::registersPerGroup() const {
  return groups > 0 ? static_cast<double>(registers) / static_cast<double>(groups) : 0.0;
}

CodeCounts countSass(const std::string &sass) {
  std::vector<SassLine> raw = readSass(sass);
  std::vector<Insn> code;
  std::vector<std::string> headers;
  std::map<long, long> indexOf;
  std::vector<std::pair<size_t, long>> branches;
  for (const SassLine &r : raw) {
    std::string base = r.opcode.substr(0, r.opcode.find('.'));
    if (base == "NOP")
      continue; // padding
    long target = -1;
    if (base == "BRA" || base == "BRX" || base == "JMP") {
      static const std::regex hex(R"(0x([0-9a-fA-F]+))");
      std::smatch m;
      if (std::regex_search(r.operands, m, hex))
        target = std::stol(m[1], nullptr, 16);
      if (target == r.addr)
        continue; // the branch to itself after the last EXIT: padding
    }
    indexOf[r.addr] = static_cast<long>(code.size());
    if (target >= 0)
      branches.push_back({code.size(), target});
    Insn in;
    in.cls = sassClass(r.opcode);
    headers.push_back(fmt::format("0x{:x}", r.addr));
    code.push_back(in);
  }
  if (code.empty())
    throw std::runtime_error("no instructions in the SASS function");
  for (auto &[i, addr] : branches) {
    auto it = indexOf.lower_bound(addr); // a NOP target: the next instruction
    if (it != indexOf.end())
      code[i].target = it->second;
  }
  return split(code, headers);
}

ResourceUsage parseResourceUsage(const std::string &text) {
  ResourceUsage u;
  std::smatch m;
  static const std::regex reg(R"(REG:(\d+))"), shared(R"(SHARED:(\d+))");
  static const std::regex used(R"(Used (\d+) registers)"), smem(R"((\d+) bytes smem)");
  static const std::regex stack(R"(STACK:(\d+))"),
      frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  if (std::regex_search(text, m, reg)) {
    u.registers = std::stoi(m[1]);
    if (std::regex_search(text, m, shared))
      u.sharedBytes = std::stoll(m[1]);
    if (std::regex_search(text, m, stack))
      u.stackFrameBytes = std::stoll(m[1]);
    return u;
  }
  if (std::regex_search(text, m, used)) {
    u.registers = std::stoi(m[1]);
    if (std::regex_search(text, m, smem))
      u.sharedBytes = std::stoll(m[1]);
    if (std::regex_search(text, m, frame)) {
      u.stackFrameBytes = std::stoll(m[1]);
      u.spillStoreBytes = std::stoll(m[2]);
      u.spillLoadBytes = std::stoll(m[3]);
    }
    return u;
  }
  throw std::runtime_error("no register count (REG: or 'Used N registers') in the output");
}

} // namespace skelcast::toolchain
