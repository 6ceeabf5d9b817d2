/* Sizes and an index macro for with_header.c (found through -I). */
#define NR 64
#define NC 32
#define IDX(i, j) ((i) * NC + (j))
