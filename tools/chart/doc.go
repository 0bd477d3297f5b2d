// Package chart tests hcokit's Helm chart (charts/hcokit, made by
// tools/install/cmd/chart from config/) with Helm's Go library, as helm
// template renders it: for each choice of platform and certificates, in any
// namespace, the chart gives the objects the matching kustomization of
// config/ builds; its operator switches leave out exactly that operator's
// objects; a wrong choice fails with a message that names the value.
package chart
