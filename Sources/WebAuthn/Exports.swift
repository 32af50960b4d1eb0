// The JSON that carries ceremonies lives in LatchkeyWire, which apps link without the
// verifier; the verifier's users see it through this module as before.
@_exported public import LatchkeyWire
