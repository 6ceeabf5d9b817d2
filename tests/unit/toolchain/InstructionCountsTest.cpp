// Counting compiled code (docs/skeletonizer.md, "Counts from a compiler"): the
// classes of PTX and SASS instructions, loops by their back edges, and the
// counts a skeleton's `comp`s get from them, on excerpts of the real outputs
// for validation/c/matmul_2048.c's naive layout (clang-19 and nvcc 13.0).
#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/toolchain/CompilerCounts.h"
#include "skelcast/toolchain/InstructionCounts.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::toolchain;

namespace {

// clang-19 -O3 --cuda-gpu-arch=sm_90 of the matmul kernel, the k loop unrolled 2
// (cut from 8 for the test; the structure is the compiler's).
const char *kPtx = R"PTX(
.visible .entry skelcast_matmul(
	.param .u64 skelcast_matmul_param_0
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<5>;
// %bb.0:
	mov.u32 	%r1, %ctaid.y;
	setp.lt.u32 	%p1, %r4, 2048;
	@!%p3 bra 	$L__BB0_4;
	bra.uni 	$L__BB0_1;
$L__BB0_1:
	ld.param.u64 	%rd14, [skelcast_matmul_param_0];
	cvta.to.global.u64 	%rd1, %rd15;
	mov.f32 	%f27, 0f00000000;
$L__BB0_2:                              // =>This Inner Loop Header: Depth=1
	add.s64 	%rd28, %rd9, %rd34;
	ld.global.f32 	%f4, [%rd28+-16];
	ld.global.f32 	%f5, [%rd33+-32768];
	fma.rn.f32 	%f6, %f4, %f5, %f27;
	ld.global.f32 	%f7, [%rd28+-12];
	ld.global.f32 	%f8, [%rd33+-24576];
	fma.rn.f32 	%f27, %f7, %f8, %f6;
	add.s64 	%rd34, %rd34, 8;
	setp.eq.s32 	%p4, %r7, 8192;
	@%p4 bra 	$L__BB0_3;
	bra.uni 	$L__BB0_2;
$L__BB0_3:
	add.f64 	%fd1, %fd2, %fd3;
	st.global.f32 	[%rd32], %f27;
$L__BB0_4:
	ret;
                                        // -- End function
}
)PTX";

// nvcc -cubin -arch=sm_90 -O3, cuobjdump -sass (cut: the loop unrolled 2).
const char *kSass = R"SASS(
	code for sm_90
		Function : skelcast_matmul
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                /* 0x00000a00ff017b82 */
                                                                         /* 0x000fe20000000800 */
        /*0010*/                   S2R R15, SR_CTAID.Y ;                 /* 0x00000000000f7919 */
        /*0020*/               @P0 EXIT ;                                /* 0x000000000000094d */
        /*0030*/                   LDG.E R15, desc[UR4][R6.64+-0x10000] ;
        /*0040*/                   LDG.E R12, desc[UR4][R8.64+-0x20] ;
        /*0050*/                   LDG.E R19, desc[UR4][R6.64+-0xe000] ;
        /*0060*/                   LDG.E R24, desc[UR4][R8.64+-0x1c] ;
        /*0070*/                   FFMA R14, R15, R12, R10 ;
        /*0080*/                   FFMA R10, R19, R24, R14 ;
        /*0090*/                   IADD3 R0, R0, 0x2, RZ ;
        /*00a0*/                   ISETP.NE.AND P0, PT, R0, 0x800, PT ;
        /*00b0*/                   IADD3 R6, P2, R6, 0x20000, RZ ;
        /*00c0*/                   IADD3.X R7, RZ, R7, RZ, P2, !PT ;
        /*00d0*/               @P0 BRA 0x30 ;
        /*00e0*/                   DFMA R2, R4, R6, R2 ;
        /*00f0*/                   F2F.F64.F32 R8, R9 ;
        /*0100*/                   STG.E desc[UR4][R2.64], R10 ;
        /*0110*/                   EXIT ;
        /*0120*/                   BRA 0x120;
        /*0130*/                   NOP;
        /*0140*/                   NOP;
		..........
)SASS";

} // namespace

TEST(InstructionCounts, PtxLoopIsFoundByItsBackEdge) {
  CodeCounts c = countPtx(kPtx);
  EXPECT_EQ(c.loops, 1);
  ASSERT_EQ(c.innermost.size(), 1u);
  const ClassCounts &l = c.innermost[0].counts;
  EXPECT_EQ(c.innermost[0].header, "$L__BB0_2");
  // add, 4 ld.global, 2 fma, add, setp, 2 bra
  EXPECT_EQ(l[InsnClass::Memory], 4) << "loads in the loop";
  EXPECT_EQ(l[InsnClass::Fp32], 2) << "FMAs in the loop";
  EXPECT_EQ(l[InsnClass::Integer], 3) << "adds and the compare";
  EXPECT_EQ(l[InsnClass::Control], 2) << "the exit branch and the back edge";
  // outside: mov, setp, 2 bra, ld.param (a constant-bank load: integer), cvta,
  // mov.f32 (a move), add.f64, st.global, ret
  EXPECT_EQ(c.outside[InsnClass::Integer], 5);
  EXPECT_EQ(c.outside[InsnClass::Control], 3);
  EXPECT_EQ(c.outside[InsnClass::Fp64], 1);
  EXPECT_EQ(c.outside[InsnClass::Memory], 1);
  EXPECT_TRUE(c.calls.empty());
}

TEST(InstructionCounts, PtxCallsAreReported) {
  std::string ptx = ".visible .entry k(\n)\n{\n\t{ // callseq 0, 0\n\t.param .b32 param0;\n"
                    "\tcall.uni (retval0), \n\tfmaf, \n\t(\n\tparam0\n\t);\n\t}\n\tret;\n}\n";
  CodeCounts c = countPtx(ptx);
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0], "fmaf");
}

TEST(InstructionCounts, SassLoopAndClasses) {
  CodeCounts c = countSass(kSass);
  EXPECT_EQ(c.loops, 1);
  ASSERT_EQ(c.innermost.size(), 1u);
  const ClassCounts &l = c.innermost[0].counts;
  EXPECT_EQ(l[InsnClass::Memory], 4);
  EXPECT_EQ(l[InsnClass::Fp32], 2);
  EXPECT_EQ(l[InsnClass::Integer], 4);
  EXPECT_EQ(l[InsnClass::Control], 1);
  // outside: LDC, S2R; @P0 EXIT, EXIT; DFMA, F2F.F64; STG; padding not counted
  EXPECT_EQ(c.outside[InsnClass::Integer], 2);
  EXPECT_EQ(c.outside[InsnClass::Control], 2);
  EXPECT_EQ(c.outside[InsnClass::Fp64], 2);
  EXPECT_EQ(c.outside[InsnClass::Memory], 1);
  EXPECT_EQ(c.outside.total(), 7);
}

TEST(InstructionCounts, SassLoadGroupsEndAtAWaitForALoadIssuedSinceTheLastWait) {
  // kSass's loop: four loads, then an FFMA that reads two of them (a wait: one
  // group of 4 registers); the next FFMA reads the other two, issued before
  // that wait, so no new group.
  SassLoadGroups m = countSassLoadGroups(kSass);
  EXPECT_EQ(m.loads, 4);
  EXPECT_EQ(m.registers, 4);
  EXPECT_EQ(m.groups, 1);
  EXPECT_DOUBLE_EQ(m.registersPerGroup(), 4);
  // Widths and stores, worked by hand: an 8-byte and a 4-byte load (3
  // registers) waited for by a FADD; the DADD reads the 8-byte one, already
  // waited out; a 16-byte load (4 registers) waited for by the store of its
  // value. Uniform registers (UR4) and RZ are not general registers.
  const char *sass = R"SASS(
		Function : k
        /*0000*/                   LDG.E.64 R2, desc[UR4][R10.64] ;
        /*0010*/                   LDG.E R4, desc[UR4][R10.64+0x8] ;
        /*0020*/                   IADD3 R12, R13, UR4, RZ ;
        /*0030*/                   FADD R5, R4, 1 ;
        /*0040*/                   DADD R6, R2, R2 ;
        /*0050*/               @P0 LDG.E.128 R8, desc[UR4][R12.64] ;
        /*0060*/                   STG.E.128 desc[UR4][R14.64], R8 ;
        /*0070*/                   EXIT ;
)SASS";
  SassLoadGroups h = countSassLoadGroups(sass);
  EXPECT_EQ(h.loads, 3);
  EXPECT_EQ(h.registers, 7);
  EXPECT_EQ(h.groups, 2);
  EXPECT_DOUBLE_EQ(h.registersPerGroup(), 3.5);
  // No load waited for: no groups, and no registers per group.
  SassLoadGroups none = countSassLoadGroups("Function : k\n /*0000*/ EXIT ;\n");
  EXPECT_EQ(none.groups, 0);
  EXPECT_DOUBLE_EQ(none.registersPerGroup(), 0);
  EXPECT_THROW(countSassLoadGroups("code for sm_90"), std::runtime_error);
}

TEST(InstructionCounts, NoKernelIsAnError) {
  EXPECT_THROW(countPtx("// nothing"), std::runtime_error);
  EXPECT_THROW(countSass("code for sm_90"), std::runtime_error);
}

TEST(InstructionCounts, ResourceUsageOfCuobjdumpAndPtxas) {
  ResourceUsage a = parseResourceUsage(
      " Function skelcast_matmul:\n  REG:32 STACK:0 SHARED:2048 LOCAL:0 CONSTANT[0]:552\n");
  EXPECT_EQ(a.registers, 32);
  EXPECT_EQ(a.sharedBytes, 2048);
  ResourceUsage b = parseResourceUsage("ptxas info    : Used 40 registers, 4096 bytes smem, 0 barriers");
  EXPECT_EQ(b.registers, 40);
  EXPECT_EQ(b.sharedBytes, 4096);
  EXPECT_EQ(b.spillStoreBytes + b.spillLoadBytes + b.stackFrameBytes, 0);
  // ptxas -v of conv2d 4096's `block=i:2,j:512 fold=i:8,j:8 unroll=a:3,b:3`
  // (validation/results/h200_emit14_ptxas.txt): the spills come before the count.
  ResourceUsage c = parseResourceUsage(
      "ptxas info    : Compiling entry function 'skelcast_conv2d' for 'sm_90'\n"
      "ptxas info    : Function properties for skelcast_conv2d\n"
      "    1456 bytes stack frame, 1948 bytes spill stores, 2008 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 0 barriers, 1456 bytes cumulative stack size\n");
  EXPECT_EQ(c.registers, 32);
  EXPECT_EQ(c.stackFrameBytes, 1456);
  EXPECT_EQ(c.spillStoreBytes, 1948);
  EXPECT_EQ(c.spillLoadBytes, 2008);
  EXPECT_EQ(parseResourceUsage(" REG:32 STACK:904 SHARED:0 LOCAL:0\n").stackFrameBytes, 904);
  EXPECT_THROW(parseResourceUsage("nothing"), std::runtime_error);
}

namespace {

skeleton::SkeletonFile matmul() {
  return skeleton::parseSkeleton("#define N 2048\nfloat A[N][N]\nfloat B[N][N]\nfloat C[N][N]\n"
                                 "parallel_for(N, N) : i, j {\n  comp 1\n  stream k = 0:N {\n"
                                 "    ld A[i][k]\n    ld B[k][j]\n    comp 3\n  }\n  comp 1\n"
                                 "  st C[i][j]\n}\n",
                                 "mm.skel");
}

} // namespace

// Hand-worked: the SASS loop body has 11 instructions for 2 iterations (4 LDG:
// unrolled 2 against the skeleton's 2 loads), 7 not memory, less 3 of loop
// control: 4 / 2 = 2 per iteration. Outside: 6 not memory, 1 of them FP64...
// 2 (DFMA, F2F.F64) FP64, split over the two outside comps (1 and 1) in
// proportion to the table's counts.
TEST(CompilerCounts, SassCountsGoIntoTheLoopAndAroundIt) {
  skeleton::SkeletonFile f = matmul();
  skeleton::Kernel k = f.kernels[0];
  AppliedCounts a = applyCompiledCounts(k, countSass(kSass), "SASS", skeleton::evalMacros(f), f.path);
  ASSERT_TRUE(a.ok) << a.why;
  EXPECT_EQ(k.body[0].comp, 3) << "before the loop: half of 6, rounded by largest remainder";
  EXPECT_EQ(k.body[1].loop.body[2].comp, 2) << "an iteration: (7 - 3) / 2";
  EXPECT_EQ(k.body[2].comp, 3);
  EXPECT_EQ(k.body[0].fp64 + k.body[2].fp64, 2);
  EXPECT_NE(a.note.find("unrolled 2"), std::string::npos) << a.note;
  EXPECT_EQ(k.comments.leading.back(), a.note);
}

TEST(CompilerCounts, LoadsThatAreNotAMultipleKeepTheTable) {
  skeleton::SkeletonFile f = skeleton::parseSkeleton(
      "#define N 2048\nfloat A[N][N]\nfloat B[N][N]\nfloat C[N][N]\n"
      "parallel_for(N, N) : i, j {\n  stream k = 0:N {\n    ld A[i][k]\n    ld B[k][j]\n"
      "    ld C[k][j]\n    comp 3\n  }\n}\n",
      "mm3.skel");
  skeleton::Kernel k = f.kernels[0];
  AppliedCounts a = applyCompiledCounts(k, countSass(kSass), "SASS", skeleton::evalMacros(f), f.path);
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.why.find("not a multiple"), std::string::npos) << a.why;
  EXPECT_EQ(k.body[0].loop.body[3].comp, 3) << "unchanged";
}

// A loop unrolled whole leaves no loop: the table's comps scaled to the total.
TEST(CompilerCounts, AWholeUnrolledLoopScalesTheTable) {
  skeleton::SkeletonFile f = skeleton::parseSkeleton(
      "#define N 1024\nfloat a[N]\nparallel_for(N) : i {\n  ld a[i]\n  comp 2\n"
      "  for n = 0:4 {\n    comp 2\n  }\n  st a[i]\n}\n",
      "u.skel");
  CodeCounts cc;
  cc.outside[InsnClass::Fp32] = 8;
  cc.outside[InsnClass::Integer] = 12;
  cc.outside[InsnClass::Memory] = 2;
  skeleton::Kernel k = f.kernels[0];
  AppliedCounts a = applyCompiledCounts(k, cc, "PTX", skeleton::evalMacros(f), f.path);
  ASSERT_TRUE(a.ok) << a.why;
  // table: 2 + 4 x 2 = 10 per thread; compiled 20 not memory: x2
  EXPECT_EQ(k.body[1].comp, 4);
  EXPECT_EQ(k.body[2].loop.body[0].comp, 4);
}

TEST(CompilerCounts, CallsKeepTheTable) {
  skeleton::SkeletonFile f = matmul();
  CodeCounts cc;
  cc.calls.push_back("fmaf");
  skeleton::Kernel k = f.kernels[0];
  AppliedCounts a = applyCompiledCounts(k, cc, "PTX", skeleton::evalMacros(f), f.path);
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.why.find("fmaf"), std::string::npos);
}

// Hand-worked, the shape of validation/results/h200_sass_lit64.txt's lit_a: a
// rolled loop of one load, three FP64 instructions and two 64-bit literals.
// SASS builds them with 4 moves an iteration: its 13 instructions not memory,
// less 3 of loop control, less 2 x 2 moves = 6, and lit64:2 stays for the
// layout to place. PTX takes the literals as immediates: 10, lit64:2 as well.
TEST(CompilerCounts, ARolledLoopsLiteralMovesStayApartFromItsCount) {
  skeleton::SkeletonFile f = skeleton::parseSkeleton(
      "#define N 1024\n#define M 64\ndouble A[M][N]\ndouble y[N]\nparallel_for(N) : i {\n"
      "  comp 1\n  stream k = 0:M {\n    ld A[k][i]\n    comp 4 (fp64:3, lit64:2)\n  }\n"
      "  comp 1\n  st y[i]\n}\n",
      "lit.skel");
  CodeCounts cc;
  LoopBody body;
  body.counts[InsnClass::Memory] = 1;
  body.counts[InsnClass::Fp64] = 3;
  body.counts[InsnClass::Integer] = 9; // 4 UMOV, VIADD, ISETP, IADD3, IMAD.X, and one more
  body.counts[InsnClass::Control] = 1; // BRA
  cc.innermost.push_back(body);
  cc.loops = 1;
  cc.outside[InsnClass::Integer] = 10;
  cc.outside[InsnClass::Memory] = 1;
  skeleton::Kernel sass = f.kernels[0];
  AppliedCounts a = applyCompiledCounts(sass, cc, "SASS", skeleton::evalMacros(f), f.path,
                                        LiteralMoves::InCount);
  ASSERT_TRUE(a.ok) << a.why;
  const skeleton::Stmt &s = sass.body[1].loop.body[1];
  EXPECT_EQ(s.comp, 6) << "13 not memory - 3 loop control - 2 x 2 moves";
  EXPECT_EQ(s.lit64, 2) << "the moves stay apart: the layout decides how often they run";
  skeleton::Kernel ptx = f.kernels[0];
  a = applyCompiledCounts(ptx, cc, "PTX", skeleton::evalMacros(f), f.path, LiteralMoves::NotInCount);
  ASSERT_TRUE(a.ok) << a.why;
  EXPECT_EQ(ptx.body[1].loop.body[1].comp, 10);
  EXPECT_EQ(ptx.body[1].loop.body[1].lit64, 2);
}
