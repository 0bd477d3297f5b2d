package clidownload

import (
	"strconv"

	consolev1 "github.com/openshift/api/console/v1"
	routev1 "github.com/openshift/api/route/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Name is the operand's registry name.
const Name = "clidownload"

// ImageKey is the Environment.Images key of the image that serves the
// virtctl binaries. Without it the operand wants nothing.
const ImageKey = "virtctl-download"

// ObjectName is the name of the Deployment and of the Service.
const ObjectName = "hyperconverged-cluster-cli-download"

// Port is the HTTP port the server listens on and the Service exposes.
const Port = 8080

// HealthPath is the server's health endpoint, used by both probes.
const HealthPath = "/health"

// StatusKind names the component in the HyperConverged's condition reasons
// ("CLIDownloadNotAvailable"); "Deployment" alone would not say which one.
const StatusKind = "CLIDownload"

// podLabel selects the server's pods. It is not one of hco.Labels, which
// carry the version and so must stay out of the immutable selector.
const podLabel = "name"

// Operand builds the download server's Deployment and Service.
type Operand struct{}

var (
	_ hco.Operand     = Operand{}
	_ hco.SchemeAdder = Operand{}
	_ hco.ListMember  = Operand{}
)

// New returns the CLI-download operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{
		&appsv1.Deployment{TypeMeta: deploymentType()},
		&corev1.Service{TypeMeta: serviceType()},
		&routev1.Route{TypeMeta: routeType()},
		&consolev1.ConsoleCLIDownload{TypeMeta: cliDownloadType()},
	}
}

func deploymentType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"}
}

func serviceType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "Service"}
}

// Desired implements hco.Operand. On OpenShift (facts.Platform), as
// upstream: the Service, the Route and the ConsoleCLIDownload, in front of
// the Deployment the install deploys (operands/clidownload/operator,
// upstream's hyperconverged-cluster-cli-download). With an image for
// ImageKey (CLI_DOWNLOAD_IMAGE, hcokit's, on any platform) the operator
// deploys the download server itself too: the Deployment first. Nothing on
// another platform without that image.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	env := facts.Environment
	image := env.Images[ImageKey]
	if image == "" && !facts.Platform.OpenShift {
		return nil, nil
	}
	var objs []client.Object
	if image != "" {
		objs = append(objs, BuildDeployment(hc, env, image))
	}
	objs = append(objs, BuildService(hc, env))
	if p := facts.Platform; p.OpenShift {
		host := DownloadHost(p, hc.Namespace)
		objs = append(objs, BuildRoute(hc, env, host), BuildCLIDownload(hc, env, host.Current))
	}
	return objs, nil
}

// BuildDeployment returns the download server's Deployment for hc, serving
// from image, placed with the infra placement.
func BuildDeployment(hc *hcov1.HyperConverged, env hco.Environment, image string) *appsv1.Deployment {
	labels := hco.Labels(hc, env, hco.ComponentDeployment)
	podLabels := hco.Labels(hc, env, hco.ComponentDeployment)
	podLabels[podLabel] = ObjectName
	probe := func(initialDelay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: HealthPath, Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP,
			}},
			InitialDelaySeconds: initialDelay,
			PeriodSeconds:       10,
			TimeoutSeconds:      5,
			FailureThreshold:    3,
			SuccessThreshold:    1,
		}
	}
	pod := corev1.PodSpec{
		AutomountServiceAccountToken: new(false),
		// As upstream's (deploy/operator.yaml at 03da3cf): nginx writes
		// under /tmp, the root filesystem being read-only.
		PriorityClassName: "system-cluster-critical",
		Volumes: []corev1.Volume{{Name: "nginx-tmp", VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: new(resource.MustParse("256Mi"))}}}},
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   new(true),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name:            "server",
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
			ReadinessProbe:  probe(5),
			LivenessProbe:   probe(15),
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("10m"),
					corev1.ResourceMemory: resource.MustParse("96Mi"),
				},
				Limits: corev1.ResourceList{
					corev1.ResourceMemory: resource.MustParse("256Mi"),
				},
			},
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: new(false),
				ReadOnlyRootFilesystem:   new(true),
				RunAsNonRoot:             new(true),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			VolumeMounts:             []corev1.VolumeMount{{Name: "nginx-tmp", MountPath: "/tmp"}},
		}},
	}
	if p := hc.Spec.InfraPlacement().DeepCopy(); p != nil {
		pod.NodeSelector = p.NodeSelector
		pod.Affinity = p.Affinity
		pod.Tolerations = p.Tolerations
	}
	return &appsv1.Deployment{
		TypeMeta:   deploymentType(),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{podLabel: ObjectName}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       pod,
			},
		},
	}
}

// BuildService returns the Service in front of the download server,
// upstream's (controllers/handlers/cliDownload.go at 03da3cf: component
// compute, its port named after its number).
func BuildService(hc *hcov1.HyperConverged, env hco.Environment) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   serviceType(),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, openShiftComponent)},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{podLabel: ObjectName},
			Ports: []corev1.ServicePort{{
				Name: strconv.Itoa(Port), Port: Port, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(Port),
			}},
		},
	}
}

// Status implements hco.Operand: the status of the Deployment among the
// observed objects when the operator deploys it; when the install does
// (only the Service is the operator's), upstream judges nothing of it: the
// component is there once its Service is.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	service := false
	for _, o := range observed {
		if d, ok := o.(*appsv1.Deployment); ok && d != nil && d.Name == ObjectName {
			return StatusFromDeployment(d)
		}
		if s, ok := o.(*corev1.Service); ok && s != nil && s.Name == ObjectName {
			service = true
		}
	}
	if service {
		return hcostatus.Found(StatusKind)
	}
	return hcostatus.NotFound(StatusKind)
}

// StatusFromDeployment maps a Deployment's rollout to a component status:
// Available follows the Deployment's Available condition; a rollout still
// under way (or not yet observed) is Progressing; a rollout past its
// deadline or a replica failure is Degraded. The server never blocks an
// upgrade, so Upgradeable is always True.
func StatusFromDeployment(d *appsv1.Deployment) hcostatus.Component {
	conds := make([]hcostatus.OperandCondition, 0, 3)
	degraded := hcostatus.OperandCondition{Type: "Degraded", Status: string(metav1.ConditionFalse)}
	progressing := hcostatus.OperandCondition{Type: "Progressing", Status: string(metav1.ConditionFalse)}
	for _, c := range d.Status.Conditions {
		switch c.Type {
		case appsv1.DeploymentAvailable:
			conds = append(conds, hcostatus.OperandCondition{Type: "Available", Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		case appsv1.DeploymentProgressing:
			switch {
			case c.Status == corev1.ConditionFalse:
				// ProgressDeadlineExceeded: the rollout is stuck.
				degraded = hcostatus.OperandCondition{Type: "Degraded", Status: string(metav1.ConditionTrue), Reason: c.Reason, Message: c.Message}
			case c.Reason != "NewReplicaSetAvailable":
				progressing = hcostatus.OperandCondition{Type: "Progressing", Status: string(c.Status), Reason: c.Reason, Message: c.Message}
			}
		case appsv1.DeploymentReplicaFailure:
			if c.Status == corev1.ConditionTrue {
				degraded = hcostatus.OperandCondition{Type: "Degraded", Status: string(metav1.ConditionTrue), Reason: c.Reason, Message: c.Message}
			}
		}
	}
	if d.Status.ObservedGeneration < d.Generation {
		progressing = hcostatus.OperandCondition{Type: "Progressing", Status: string(metav1.ConditionTrue),
			Reason: "RolloutPending", Message: "the Deployment controller has not observed the latest spec yet"}
	}
	if len(d.Status.Conditions) == 0 && d.Status.ObservedGeneration == 0 {
		// Nothing observed yet: leave every condition Unknown.
		return hcostatus.FromConditions(StatusKind, nil, "")
	}
	conds = append(conds, progressing, degraded)
	return hcostatus.FromConditions(StatusKind, conds, "")
}

// Images implements hco.Imager: the flag cli-download-image and the variable CLI_DOWNLOAD_IMAGE
// (hcokit's own variable).
func (Operand) Images() []hco.Image {
	return []hco.Image{{Key: ImageKey, Flag: "cli-download-image", Variable: "CLI_DOWNLOAD_IMAGE",
		Usage: "Image serving the virtctl binaries in the cluster; empty disables the clidownload operand"}}
}
