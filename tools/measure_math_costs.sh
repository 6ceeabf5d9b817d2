#!/usr/bin/env bash
# Measures the SASS instructions a GPU executes for math functions and divisions
# (docs/math-costs-h100.txt holds one run). Needs nvcc, ncu and a GPU; run it in an
# empty directory.
set -e
cat > m.cu <<'E'
#include <cstdio>
#define K(n,T,e) __global__ void n(const T*a,const T*b,T*o){int i=blockIdx.x*blockDim.x+threadIdx.x;T x=a[i],y=b[i];o[i]=e;}
#define F(n,e) K(n,float,e)
#define D(n,e) K(n,double,e)
F(f_copy,x)F(f_add,x+y)F(f_div,x/y)F(f_sqrt,sqrtf(x))F(f_exp,expf(x))F(f_log,logf(x))F(f_sin,sinf(x))F(f_cos,cosf(x))F(f_tan,tanf(x))F(f_pow,powf(x,y))F(f_floor,floorf(x))F(f_atan2,atan2f(x,y))F(f_tanh,tanhf(x))F(f_erf,erff(x))F(f_fabs,fabsf(x))F(f_fmin,fminf(x,y))
D(d_copy,x)D(d_div,x/y)D(d_sqrt,sqrt(x))D(d_exp,exp(x))D(d_log,log(x))D(d_sin,sin(x))D(d_pow,pow(x,y))
K(i_copy,int,x)K(i_div,int,x/y)K(i_mod,int,x%y)K(l_copy,long long,x)K(l_div,long long,x/y)K(l_mod,long long,x%y)
template<class T>__global__ void init(T*a,T*b,T s){int i=blockIdx.x*blockDim.x+threadIdx.x;unsigned h=i*2654435761u;a[i]=(T)(1+(h>>8)%100000)/s;b[i]=(T)(1+(h>>4)%997)/s;}
template<class T>void run(void(*k)(const T*,const T*,T*),T s){int n=1<<20;T*a,*b,*o;cudaMalloc(&a,n*sizeof(T));cudaMalloc(&b,n*sizeof(T));cudaMalloc(&o,n*sizeof(T));init<<<n/256,256>>>(a,b,s);k<<<n/256,256>>>(a,b,o);cudaDeviceSynchronize();cudaFree(a);cudaFree(b);cudaFree(o);}
int main(){
#define R(k) run(k,10000.0f);
#define Q(k) run(k,10000.0);
#define I(k,T) run(k,(T)1);
R(f_copy)R(f_add)R(f_div)R(f_sqrt)R(f_exp)R(f_log)R(f_sin)R(f_cos)R(f_tan)R(f_pow)R(f_floor)R(f_atan2)R(f_tanh)R(f_erf)R(f_fabs)R(f_fmin)Q(d_copy)Q(d_div)Q(d_sqrt)Q(d_exp)Q(d_log)Q(d_sin)Q(d_pow)I(i_copy,int)I(i_div,int)I(i_mod,int)I(l_copy,long long)I(l_div,long long)I(l_mod,long long)
printf("ok\n");}
E
nvcc --version|tail -2;nvcc -O3 -arch=sm_90 m.cu -o m&&./m&&ncu --metrics smsp__inst_executed.sum -k regex:'^[fdil]_' ./m 2>&1|grep -E '^\s+[fdil]_|inst_executed'|paste - -|awk '{print $1,$NF}'
cuobjdump -sass m|grep -E 'Function|^\s+/\*[0-9a-f]{4}\*/'|awk '/Function/{if(n)print f,n;f=$3;n=0;next}{n++}END{print f,n}'
