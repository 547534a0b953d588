/* research/zen: the shipped fused mul kernels at adx (split ADD/ADC product
 * rows from 5 limbs) against the variant with ADCX/ADOX product rows
 * (v_fg_*: adx_product_rows.patch), and the bmi2 kernels; chained calls,
 * interleaved rounds, TSC ticks, medians; outputs checked equal first.
 * Built and run by build.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <x86intrin.h>
#include "fg_cpu.h"
#include "fg_p503.h"
#include "fg_p751.h"
void v_fg_p503_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b);
void v_fg_p751_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b);
static inline uint64_t tsc(void){_mm_lfence();uint64_t t=__rdtsc();_mm_lfence();return t;}
static int cmp(const void*a,const void*b){double u=*(double*)a,v=*(double*)b;return u<v?-1:u>v;}
#define R 401
#define IT 300
typedef void (*mf)(uint64_t*, const uint64_t*, const uint64_t*);
static double run(mf f, int n){ static uint64_t x[12], y[12]; for(int i=0;i<n;i++){x[i]=(i+1)*0x9e3779b97f4a7c15ull>>9; y[i]=(i+7)*0x12345678ull;}
  uint64_t t0=tsc(); for(int i=0;i<IT;i++) f(x,x,y); return (double)(tsc()-t0)/IT; }
int main(void){
  mf f[]={fg_p503_mul_adx, v_fg_p503_mul_adx, fg_p503_mul_bmi2, fg_p751_mul_adx, v_fg_p751_mul_adx, fg_p751_mul_bmi2};
  int nl[]={8,8,8,12,12,12};
  const char*n[]={"p503 mul_adx (shipped: ADD/ADC product rows)","p503 mul_adx (ADCX/ADOX product rows)","p503 mul_bmi2",
                  "p751 mul_adx (shipped)","p751 mul_adx (ADCX/ADOX product rows)","p751 mul_bmi2 (Karatsuba)"};
  enum{N=6}; static double s[N][R];
  /* check equal outputs */
  { uint64_t a[12],b[12],r1[12],r2[12]; for(int i=0;i<12;i++){a[i]=i*0x1111111111111ull; b[i]=~a[i]>>4;}
    a[7]&=0xffffffffffffull; b[7]&=0xffffffffffffull; a[11]&=0xffffffffffull; b[11]&=0xffffffffffull;
    fg_p503_mul_adx(r1,a,b); v_fg_p503_mul_adx(r2,a,b); for(int i=0;i<8;i++) if(r1[i]!=r2[i]) {puts("p503 MISMATCH"); return 1;}
    fg_p751_mul_adx(r1,a,b); v_fg_p751_mul_adx(r2,a,b); for(int i=0;i<12;i++) if(r1[i]!=r2[i]) {puts("p751 MISMATCH"); return 1;} }
  for(int r=0;r<R;r++) for(int k=0;k<N;k++){ run(f[k],nl[k]); s[k][r]=run(f[k],nl[k]); }
  for(int k=0;k<N;k++){ qsort(s[k],R,sizeof(double),cmp); printf("%-46s %8.1f ticks (p25 %.1f p75 %.1f)\n",n[k],s[k][R/2],s[k][R/4],s[k][3*R/4]); }
}
