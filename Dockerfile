# Multi-stage build of a static hco-operator image.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/hco-operator ./cmd/hco-operator

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/hco-operator /hco-operator
USER 65532:65532
ENTRYPOINT ["/hco-operator"]
