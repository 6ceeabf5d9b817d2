/* What skelcast refuses, next to one nest it ports. Each refused nest is a
 * warning naming the loop and the reason; the rest of the file goes on. The
 * CHECK-MESSAGES comments say which warning each loop gets (clang-tidy's
 * style: [[@LINE+1]] is the next line); tests/unit/frontend checks them. */
#include <stdio.h>

#define N 4096

float a[N], b[N], c[N];
int hist[256];
int key[N];

/* ported: independent iterations */
void scale(float s) {
  for (int i = 0; i < N; i++)
    c[i] = s * a[i];
}

/* warning: a loop-carried dependence (a prefix sum) */
void prefix_sum(void) {
  // CHECK-MESSAGES: :[[@LINE+1]]:3: warning: cannot port this loop: the iterations are not independent: 'a[i]' (written) and 'a[i - 1]' (read)
  for (int i = 1; i < N; i++)
    a[i] = a[i - 1] + b[i];
}

/* warning: a 'while' loop */
void converge(float tol) {
  float err = 1.0f;
  int i = 0;
  // CHECK-MESSAGES: :[[@LINE+1]]:3: warning: cannot port this loop: a 'while' loop (only 'for' loops are ported)
  while (err > tol && i < N) {
    err = err * 0.5f + a[i];
    i++;
  }
}

/* warning: a call whose body is not visible */
void report(void) {
  // CHECK-MESSAGES: :[[@LINE+1]]:3: warning: cannot port this loop: call to 'printf', whose body is not visible (line 41)
  for (int i = 0; i < N; i++)
    printf("%f\n", c[i]);
}

/* warning: the two pointers alias: shift_in_place passes one array for both */
void shift(float *dst, const float *src, int n) {
  // CHECK-MESSAGES: :[[@LINE+1]]:3: warning: cannot port this loop: 'dst' and 'src' point to the same memory: the call on line 50 passes 'buf' for both 'dst' and 'src'
  for (int i = 0; i < N; i++)
    dst[i] = src[i] * 2.0f;
}
void shift_in_place(float *buf) { shift(buf + 1, buf, N); }

/* warning: a goto leaves the loop */
void find(float v) {
  // CHECK-MESSAGES: :[[@LINE+1]]:3: warning: cannot port this loop: a 'goto' (line 57)
  for (int i = 0; i < N; i++) {
    if (a[i] == v)
      goto found;
    b[i] = a[i];
  }
found:
  return;
}

/* warning: a scatter through data (a histogram) */
void histogram(void) {
  // CHECK-MESSAGES: :[[@LINE+1]]:3: warning: cannot port this loop: the iterations update 'hist' as a reduction (a port needs atomics or a GPU reduction; OpenMP's 'reduction' clause says it may run in parallel)
  for (int i = 0; i < N; i++)
    hist[key[i]] += 1;
}

/* warning: a running sum read inside the loop (a prefix sum; a sum read
 * nowhere else is ported as a GPU reduction, docs/skeletonizer.md) */
float total(void) {
  float s = 0.0f;
  // CHECK-MESSAGES: :[[@LINE+1]]:3: warning: cannot port this loop: 's' carries a value from one iteration to the next
  for (int i = 0; i < N; i++) {
    s += a[i];
    c[i] = s;
  }
  return s;
}
