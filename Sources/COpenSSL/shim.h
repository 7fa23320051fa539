#ifndef WALLET_ORDERS_COPENSSL_SHIM_H
#define WALLET_ORDERS_COPENSSL_SHIM_H
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// Entry points for what OpenSSL declares as macros or variadic functions, which Swift cannot import.
static inline long wo_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline EVP_PKEY *wo_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }
static inline EVP_PKEY *wo_EVP_EC_gen_P256(void) { return EVP_EC_gen("P-256"); }
static inline STACK_OF(X509) *wo_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int wo_sk_X509_push(STACK_OF(X509) *s, X509 *x) { return sk_X509_push(s, x); }
static inline int wo_sk_X509_num(const STACK_OF(X509) *s) { return sk_X509_num(s); }
static inline X509 *wo_sk_X509_value(const STACK_OF(X509) *s, int i) { return sk_X509_value(s, i); }
static inline void wo_sk_X509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline void wo_sk_X509_pop_free(STACK_OF(X509) *s) { sk_X509_pop_free(s, X509_free); }
static inline int wo_sk_CMS_SignerInfo_num(STACK_OF(CMS_SignerInfo) *s) { return sk_CMS_SignerInfo_num(s); }
static inline CMS_SignerInfo *wo_sk_CMS_SignerInfo_value(STACK_OF(CMS_SignerInfo) *s, int i) { return sk_CMS_SignerInfo_value(s, i); }
static inline unsigned long wo_name_print_flags(void) { return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB; }
static inline void wo_OPENSSL_free(void *p) { OPENSSL_free(p); }
#endif
