package v1beta1

// FieldMoves is fieldMoves, for the tests that hold it to the conversion.
var FieldMoves = fieldMoves
