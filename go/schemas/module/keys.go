package module

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"

	"github.com/gree-ml/gree/go/status"
)

// Module signing keys are Ed25519 keys in any of the forms below, so that
// keys made by GenerateKey, by `openssl genpkey -algorithm ed25519` or by
// a few lines of any language all work:
//
//	private key: PEM "PRIVATE KEY" (PKCS #8, as openssl writes it), the
//	             raw 32-byte seed or 64-byte private key, or either in hex
//	public key:  PEM "PUBLIC KEY" (PKIX, `openssl pkey -pubout`), the raw
//	             32 bytes, or the 32 bytes in hex

// ParsePrivateKey parses an Ed25519 private key file's contents.
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	if blk, _ := pem.Decode(data); blk != nil {
		if blk.Type != "PRIVATE KEY" {
			return nil, status.Errorf(status.InvalidArgument, "signing key: PEM block %q, want \"PRIVATE KEY\" (Ed25519, PKCS #8)", blk.Type)
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, status.Errorf(status.InvalidArgument, "signing key: %v", err)
		}
		key, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, status.Errorf(status.InvalidArgument, "signing key is a %T, not an Ed25519 key", k)
		}
		return key, nil
	}
	raw := rawKey(data)
	switch len(raw) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case ed25519.PrivateKeySize:
		key := ed25519.NewKeyFromSeed(raw[:ed25519.SeedSize])
		if !bytes.Equal(key, raw) {
			return nil, status.Errorf(status.InvalidArgument, "signing key: its 64 bytes are not an Ed25519 seed and its public key")
		}
		return key, nil
	}
	return nil, status.Errorf(status.InvalidArgument, "signing key of %d bytes is not an Ed25519 private key (PEM PKCS #8, a 32-byte seed or a 64-byte key, raw or hex)", len(data))
}

// ParsePublicKey parses an Ed25519 public key file's contents.
func ParsePublicKey(data []byte) (ed25519.PublicKey, error) {
	if blk, _ := pem.Decode(data); blk != nil {
		if blk.Type != "PUBLIC KEY" {
			return nil, status.Errorf(status.InvalidArgument, "public key: PEM block %q, want \"PUBLIC KEY\" (Ed25519, PKIX)", blk.Type)
		}
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, status.Errorf(status.InvalidArgument, "public key: %v", err)
		}
		key, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, status.Errorf(status.InvalidArgument, "public key is a %T, not an Ed25519 key", k)
		}
		return key, nil
	}
	if raw := rawKey(data); len(raw) == ed25519.PublicKeySize {
		return ed25519.PublicKey(raw), nil
	}
	return nil, status.Errorf(status.InvalidArgument, "public key of %d bytes is not an Ed25519 public key (PEM PKIX or 32 bytes, raw or hex)", len(data))
}

// rawKey returns data as key bytes: decoded when it is hex text (with
// surrounding white space), else as is.
func rawKey(data []byte) []byte {
	t := bytes.TrimSpace(data)
	if len(t) == 2*ed25519.SeedSize || len(t) == 2*ed25519.PrivateKeySize {
		if b, err := hex.DecodeString(string(t)); err == nil {
			return b
		}
	}
	return data
}

// GenerateKey makes a new Ed25519 key pair and returns the private key as
// PEM PKCS #8 and the public key as PEM PKIX (the files openssl writes).
func GenerateKey() (private, public []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, status.Errorf(status.Unavailable, "generating a key: %v", err)
	}
	p8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, status.Errorf(status.Internal, "encoding the private key: %v", err)
	}
	pk, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, status.Errorf(status.Internal, "encoding the public key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pk}), nil
}
