/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include "study.h"
static inline uint64_t tsc(void){ _mm_lfence(); uint64_t t=__rdtsc(); _mm_lfence(); return t; }
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static uint64_t rs=88172645463325252ull; static uint64_t rnd(void){ rs^=rs<<13; rs^=rs>>7; rs^=rs<<17; return rs; }
static void rnd_elt(uint64_t *x, int n, const uint64_t *P){ for(;;){ for(int i=0;i<n;i++) x[i]=rnd(); x[n-1] &= (1ull<<((64-__builtin_clzll(P[n-1]))))-1; int lt=0; for(int i=n-1;i>=0;i--){ if(x[i]!=P[i]){ lt = x[i]<P[i]; break;} } if(lt) return; } }
typedef void (*f3)(void*,const void*,const void*);
int main(void){
  ifma_setup();
  int fails=0;
  for (int fi=0; fi<2; fi++){
    int n = fi? 12: 8; const uint64_t *P = fi? fg_p751_P: fg_p503_P;
    f3 ref = fi? fg_p751_fp2_mul: fg_p503_fp2_mul; f3 ifm = fi? (f3)p751_fp2_mul_ifma: (f3)p503_fp2_mul_ifma; f3 fm = fi? fg_p751_mul: fg_p503_mul;
    uint64_t a[24], b[24], r1[24], r2[24];
    for (int k=0;k<100000;k++){ rnd_elt(a,n,P); rnd_elt(a+n,n,P); rnd_elt(b,n,P); rnd_elt(b+n,n,P);
      if (k<4){ for(int i=0;i<n;i++){ a[i]= k&1? P[i]-(i==0):0; a[n+i]= k&2? P[i]-(i==0):0; b[i]=P[i]-(i==0); b[n+i]=P[i]-(i==0);} }
      ref(r1,a,b); ifm(r2,a,b); if(memcmp(r1,r2,16*n)) { if(fails++<3) printf("MISMATCH n=%d k=%d\n",n,k); } }
    enum{R=301, IT=200}; static double s[3][R]; uint64_t x[24], y[24]; memcpy(x,a,sizeof x); memcpy(y,b,sizeof y);
    for(int r=0;r<R;r++){ uint64_t t0=tsc(); for(int i=0;i<IT;i++) ref(x,x,y); s[0][r]=(tsc()-t0)*1.305/IT;
                          t0=tsc(); for(int i=0;i<IT;i++) ifm(x,x,y); s[1][r]=(tsc()-t0)*1.305/IT;
                          t0=tsc(); for(int i=0;i<IT;i++) fm(x,x,y); s[2][r]=(tsc()-t0)*1.305/IT; }
    for(int v=0;v<3;v++) qsort(s[v],R,8,cmpd);
    printf("n=%2d fp2_mul dispatched %.1f  ifma %.1f  (ratio %.2f)  Fp mul %.1f  -> ifma Fp2/Fp mul %.2fx, current %.2fx\n", n, s[0][R/2], s[1][R/2], s[1][R/2]/s[0][R/2], s[2][R/2], s[1][R/2]/s[2][R/2], s[0][R/2]/s[2][R/2]);
  }
  printf("%s\n", fails? "FAIL": "all match");
  return fails!=0;
}
