#include "sc_test.h"
int main(void){T_DONE();}
