package vm

import (
	"crypto/ed25519"
	"os"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// flagModuleTrust lists the public keys of trusted module signers.
var flagModuleTrust = flags.List("module_trust",
	"A file holding the Ed25519 public key of a module signer to trust (PEM, raw\n"+
		"32 bytes or hex); may be repeated. When given, every module loaded must be\n"+
		"signed by one of these keys (iree-compile --gree-sign-key) or loading it\n"+
		"fails with PERMISSION_DENIED. Without it, unsigned modules load. An empty\n"+
		"value (--module_trust=) drops the keys given before it.")

// TrustedKeys returns the public keys of the --module_trust files given
// since the last empty --module_trust= (none when the flag is not given:
// then any module loads).
func TrustedKeys() ([]ed25519.PublicKey, error) {
	var keys []ed25519.PublicKey
	for _, path := range *flagModuleTrust {
		if path == "" { // an empty value drops the keys given before it
			keys = nil
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			code := status.Unavailable
			if os.IsNotExist(err) {
				code = status.NotFound
			}
			return nil, status.Errorf(code, "--module_trust=%s: %v", path, err)
		}
		k, err := module.ParsePublicKey(data)
		if err != nil {
			return nil, status.Annotate(err, "--module_trust=%s", path)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// LoadTrustedModule decodes and verifies a module file that must be
// signed by one of trusted (any module when trusted is empty). data must
// stay unchanged while the module is in use.
func LoadTrustedModule(data []byte, trusted []ed25519.PublicKey) (*Module, error) {
	def, err := module.Decode(data)
	if err != nil {
		return nil, err
	}
	if len(trusted) > 0 {
		if err := module.VerifySignature(data, def.Name, trusted); err != nil {
			return nil, err
		}
	}
	return &Module{Def: def, Data: data}, nil
}
